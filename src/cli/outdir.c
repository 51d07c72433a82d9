#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/oneline.h"
#include "cli/outdir.h"
#include "core/contract.h"
#include "profile/reader.h"

static int ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n > m && !strcmp(s + n - m, suffix);
}

int outdir_is_valgrind_log(const char *name)
{
	return !strncmp(name, "valgrind-", 9) && ends_with(name, ".log");
}

/* Files an earlier run left that must not be mistaken for this run's. */
static int stale(const char *name)
{
	return ends_with(name, PROFILE_SUFFIX) || outdir_is_valgrind_log(name);
}

void outdir_remove(const char *dir, int (*match)(const char *name))
{
	char path[PATH_MAX + 300];
	struct dirent *de;
	DIR *d = opendir(dir);

	while (d && (de = readdir(d))) {
		if (!match(de->d_name))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		unlink(path);
	}
	if (d)
		closedir(d);
}

int outdir_prepare(const char *who, const char *dir, char *abs, size_t cap)
{
	char tmp[PATH_MAX], probe[PATH_MAX + 300], *p;
	int fd;

	snprintf(tmp, sizeof(tmp), "%s", dir);
	for (p = tmp + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = 0;
		mkdir(tmp, 0755);
		*p = '/';
	}
	if (mkdir(tmp, 0755) < 0 && errno != EEXIST) {
		return cli_fail(who, 2, "cannot create output directory %s: %s; choose another with -o DIR",
				dir, strerror(errno));
	}
	if (!realpath(dir, abs) || strlen(abs) >= cap) {
		return cli_fail(who, 2, "cannot use output directory %s: %s", dir, strerror(errno));
	}
	snprintf(probe, sizeof(probe), "%s/.witch-write-test", abs);
	fd = open(probe, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0) {
		return cli_fail(who, 2, "cannot write to output directory %s: %s; choose another with -o DIR",
				dir, strerror(errno));
	}
	close(fd);
	unlink(probe);
	outdir_remove(abs, stale);
	return 0;
}

int outdir_check(const char *who, const char *dir)
{
	char tmp[PATH_MAX], *slash;
	struct stat st;
	int exists;

	snprintf(tmp, sizeof(tmp), "%s", dir);
	exists = stat(tmp, &st) == 0;
	/* Else the nearest ancestor that exists decides whether mkdir -p works. */
	while (!exists) {
		slash = strrchr(tmp, '/');
		if (!slash)
			snprintf(tmp, sizeof(tmp), ".");
		else if (slash == tmp)
			slash[1] = 0;
		else
			*slash = 0;
		if (stat(tmp, &st) == 0)
			break;
		if (!slash || slash == tmp)
			return 0;	/* odd: let outdir_prepare say what is wrong */
	}
	if (!S_ISDIR(st.st_mode))
		errno = ENOTDIR;
	else if (access(tmp, W_OK | X_OK) == 0)
		return 0;
	return cli_fail(who, 2, "cannot %s output directory %s: %s; choose another with -o DIR",
			exists ? "write to" : "create", dir, strerror(errno));
}

int outdir_count_profiles(const char *dir, uint64_t *unsampled)
{
	char path[PATH_MAX + 256], err[512];
	struct wp_profile *p;
	struct dirent *de;
	DIR *d = opendir(dir);
	int n = 0;

	if (unsampled)
		*unsampled = 0;
	while (d && (de = readdir(d))) {
		if (!ends_with(de->d_name, PROFILE_SUFFIX))
			continue;
		n++;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (unsampled && wp_read(path, &p, err, sizeof(err)) == 0) {
			*unsampled += wp_stat_value(p, "threads_unsampled");
			wp_free(p);
		}
	}
	if (d)
		closedir(d);
	return n;
}

int witch_libdir(char *dir, size_t cap)
{
	char exe[PATH_MAX], *slash;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (n <= 0)
		return -1;
	exe[n] = 0;
	slash = strrchr(exe, '/');
	if (!slash)
		return -1;
	*slash = 0;
	return (size_t)snprintf(dir, cap, "%.*s/../lib/witch", (int)(cap - 32), exe) >= cap ? -1 : 0;
}
