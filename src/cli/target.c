#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/target.h"

static int executable_file(const char *path, char *err, size_t errlen)
{
	struct stat st;

	if (stat(path, &st) < 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	if (S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "%s is a directory, not a program", path);
		return -1;
	}
	if (access(path, X_OK) < 0) {
		snprintf(err, errlen, "%s is not executable (chmod +x it, or run it through its interpreter)",
			 path);
		return -1;
	}
	return 0;
}

int target_resolve(const char *name, char *path, size_t cap, char *err, size_t errlen)
{
	const char *p = getenv("PATH"), *end;

	if (!*name) {
		snprintf(err, errlen, "empty program name");
		return -1;
	}
	if (strchr(name, '/')) {
		snprintf(path, cap, "%s", name);
		return executable_file(path, err, errlen);
	}
	for (p = p ? p : "/usr/local/bin:/usr/bin:/bin"; *p; p = *end ? end + 1 : end) {
		end = strchrnul(p, ':');
		snprintf(path, cap, "%.*s%s%s", (int)(end - p), p, end > p ? "/" : "", name);
		if (access(path, X_OK) == 0)
			return executable_file(path, err, errlen);
	}
	snprintf(err, errlen, "%s: command not found (not in PATH; give a path such as ./%s)", name,
		 name);
	return -1;
}

/* For "#!/interp arg" scripts, the program the kernel really runs. */
static int script_interpreter(const char *buf, size_t n, char *interp, size_t cap)
{
	size_t i = 2, j = 0;

	if (n < 3 || buf[0] != '#' || buf[1] != '!')
		return 0;
	while (i < n && (buf[i] == ' ' || buf[i] == '\t'))
		i++;
	while (i < n && j + 1 < cap && buf[i] != ' ' && buf[i] != '\t' && buf[i] != '\n')
		interp[j++] = buf[i++];
	interp[j] = 0;
	return j > 0;
}

static int elf_checks(const char *path, int fd, char *err, size_t errlen)
{
	Elf64_Ehdr eh;
	Elf64_Phdr ph;
	int i;

	if (pread(fd, &eh, sizeof(eh), 0) != sizeof(eh) || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_machine != EM_X86_64) {
		snprintf(err, errlen, "%s is not an x86-64 ELF program; witch measures x86-64 Linux binaries",
			 path);
		return -1;
	}
	for (i = 0; i < eh.e_phnum; i++) {
		if (pread(fd, &ph, sizeof(ph), (off_t)(eh.e_phoff + (Elf64_Off)i * eh.e_phentsize)) !=
		    sizeof(ph))
			break;
		if (ph.p_type == PT_INTERP)
			return 0;
	}
	snprintf(err, errlen,
		 "%s is statically linked: witch preloads its runtime (LD_PRELOAD), which needs a "
		 "dynamically linked program; rebuild it without -static",
		 path);
	return -1;
}

int target_preloadable(const char *path, char *err, size_t errlen)
{
	char buf[256], interp[256];
	struct stat st;
	ssize_t n;
	int fd, rc;

	/* The loader runs in secure mode, ignoring LD_PRELOAD, when exec
	 * would change our user or group ids. */
	if (stat(path, &st) == 0 && (((st.st_mode & S_ISUID) && st.st_uid != geteuid()) ||
				     ((st.st_mode & S_ISGID) && st.st_gid != getegid()))) {
		snprintf(err, errlen,
			 "%s is setuid/setgid: the loader ignores LD_PRELOAD for it; run a copy without "
			 "the setuid bit",
			 path);
		return -1;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(err, errlen, "cannot read %s: %s", path, strerror(errno));
		return -1;
	}
	n = pread(fd, buf, sizeof(buf), 0);
	if (n >= 4 && !memcmp(buf, ELFMAG, SELFMAG)) {
		rc = elf_checks(path, fd, err, errlen);
	} else if (n > 0 && script_interpreter(buf, (size_t)n, interp, sizeof(interp))) {
		close(fd);
		return target_preloadable(interp, err, errlen);
	} else {
		snprintf(err, errlen, "%s is neither an ELF program nor a #! script", path);
		rc = -1;
	}
	close(fd);
	return rc;
}
