#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/job.h"
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
	return !strncmp(name, "valgrind-", 9) && ends_with(name, ".log") && cli_job_file(name, '-', ".log");
}

/* This rank's profiles (all, without a launcher: cli/job.h). */
static int profile(const char *name)
{
	return ends_with(name, PROFILE_SUFFIX) && cli_job_file(name, '-', PROFILE_SUFFIX);
}

/* Files an earlier run left that must not be mistaken for this run's. */
static int stale(const char *name)
{
	return profile(name) || outdir_is_valgrind_log(name);
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

/* Create dir, prove it writable, its absolute path in abs. */
static int make_dir(const char *who, const char *dir, char *abs, size_t cap)
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
	return 0;
}

int outdir_prepare(const char *who, const char *dir, char *abs, size_t cap)
{
	int rc = make_dir(who, dir, abs, cap);

	if (!rc)
		outdir_remove(abs, stale);
	return rc;
}

/* Whether the profile at path is of tool: its second line says. */
static int of_tool(const char *path, const char *tool)
{
	char head[128], want[64];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, head, sizeof(head) - 1) : -1;

	if (fd >= 0)
		close(fd);
	if (n <= 0)
		return 0;
	head[n] = 0;
	snprintf(want, sizeof(want), "\ntool %s\n", tool);
	return strstr(head, want) != NULL;
}

int outdir_has_tool(const char *dir, const char *tool)
{
	char path[PATH_MAX + 300];
	struct dirent *de;
	DIR *d = opendir(dir);
	int found = 0;

	while (d && !found && (de = readdir(d))) {
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		found = profile(de->d_name) && of_tool(path, tool);
	}
	if (d)
		closedir(d);
	return found;
}

int outdir_prepare_run(const char *who, const char *dir, char *abs, size_t cap, const char *tool)
{
	char path[PATH_MAX + 300];
	struct dirent *de;
	int rc = make_dir(who, dir, abs, cap);
	DIR *d;

	if (rc)
		return rc;
	outdir_remove(abs, outdir_is_valgrind_log);
	d = opendir(abs);
	while (d && (de = readdir(d))) {
		snprintf(path, sizeof(path), "%s/%s", abs, de->d_name);
		if (profile(de->d_name) && of_tool(path, tool))
			unlink(path);
	}
	if (d)
		closedir(d);
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
		if (!profile(de->d_name))
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

void outdir_say_profiles(const char *who, int n, const char *dir)
{
	const struct core_job *j = cli_job();

	if (j->rank < 0)
		fprintf(stderr, "%s: %d profile%s in %s; see them with: witch report %s\n", who, n,
			n == 1 ? "" : "s", dir, dir);
	else if (!cli_job_quiet())
		fprintf(stderr, "%s: rank 0 wrote %d profile%s in %s, each rank its own; see them "
				"all with: witch report %s (--by-rank compares the ranks)\n", who, n,
			n == 1 ? "" : "s", dir, dir);
}

int witch_self(char *path, size_t cap)
{
	ssize_t n = readlink("/proc/self/exe", path, cap - 1);

	if (n <= 0 || (size_t)n >= cap - 1)
		return -1;
	path[n] = 0;
	return 0;
}

int witch_libdir(char *dir, size_t cap)
{
	char exe[PATH_MAX], *slash;

	if (witch_self(exe, sizeof(exe)))
		return -1;
	slash = strrchr(exe, '/');
	if (!slash)
		return -1;
	*slash = 0;
	return (size_t)snprintf(dir, cap, "%.*s/../lib/witch", (int)(cap - 32), exe) >= cap ? -1 : 0;
}
