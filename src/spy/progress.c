/*
 * progress.c - the one-line progress indicator that `witch spy` and
 * `witch cpi`'s counting run show while the program runs under Valgrind,
 * for runs long enough to make one wonder whether anything happens:
 *
 *   witch spy: 12.5 s, 4.52 G blocks, shadow 812 MiB
 *
 * The CLI asks for it only when its stderr is a terminal, and names that
 * terminal (--witch-progress=TTY): a counting run's stderr is /dev/null,
 * and the client may redirect its own. The terminal is opened for each
 * line rather than held open: a descriptor of ours in the client's range
 * would be one more the program sees (and might close or reuse).
 *
 * The line is redrawn in place ('\r') from the scheduler's timeslice hook,
 * which costs nothing per instruction, at most every PERIOD_MS. It shares
 * the terminal with the program: before the program writes to it (through
 * fd 1 or 2), the line is erased, and it is not drawn again while the
 * program's last write there left a line unfinished (a prompt), which it
 * would overwrite. It is erased too before witchspy's own output at exit
 * and exec, so that witch's summary starts on a clean line.
 *
 * Counted: the tool count's instructions (count_calls.c keeps them per
 * thread); the other tools have only the superblocks the core ran.
 */
#include "pub_tool_basics.h"
#include "pub_tool_aspacemgr.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcfile.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_libcproc.h"
#include "pub_tool_vki.h"
#include "pub_tool_vkiscnums.h"

#include "spy.h"
#include "loop.h"

#define PERIOD_MS 500
/* A timeslice is 100,000 superblocks, but a system call ends one early:
 * the clock (a system call itself) is read only this many blocks apart. */
#define BLOCKS_APART 10000
#define LINE_MAX 200
#define O_NOCTTY_ 0400		/* not in Valgrind's vki headers */

const HChar *progress_tty, *progress_label = "witch";

static Bool on;
static Bool shares[3];		/* client fds 1 and 2 write to the terminal */
static Bool line_start = True;	/* the program's last write there ended a line */
static Int shown;		/* length of the line on the terminal; 0: none */
static UInt next_ms = PERIOD_MS;
static ULong next_blocks;

static void put(const HChar *s, Int n)
{
	SysRes r = VG_(open)(progress_tty, VKI_O_WRONLY | O_NOCTTY_, 0);

	if (sr_isError(r)) {
		on = False;	/* gone (the session ended): nowhere to draw */
		shown = 0;
		return;
	}
	VG_(write)(sr_Res(r), s, n);
	VG_(close)(sr_Res(r));
}

void progress_init(void)
{
	struct vg_stat tty, st;
	SysRes r;
	Int fd;

	if (!progress_tty)
		return;
	r = VG_(open)(progress_tty, VKI_O_WRONLY | O_NOCTTY_, 0);
	if (sr_isError(r))
		return;
	fd = sr_Res(r);
	on = VG_(fstat)(fd, &tty) == 0 && VKI_S_ISCHR(tty.mode);
	VG_(close)(fd);
	for (fd = 1; on && fd <= 2; fd++)
		shares[fd] = VG_(fstat)(fd, &st) == 0 && VKI_S_ISCHR(st.mode) && st.rdev == tty.rdev;
}

/* v to three significant digits with a decimal prefix: 812, 4.52 G. */
static void count_str(HChar *buf, Int cap, ULong v)
{
	static const HChar prefix[] = "kMGTPE";
	ULong scale = 1000, h;
	Int u = 0;

	if (v < 1000) {
		VG_(snprintf)(buf, cap, "%llu", v);
		return;
	}
	while (v / scale >= 1000 && u < 5) {
		scale *= 1000;
		u++;
	}
	h = v / (scale / 100);	/* hundredths of the unit */
	if (h >= 10000)
		VG_(snprintf)(buf, cap, "%llu %c", h / 100, prefix[u]);
	else if (h >= 1000)
		VG_(snprintf)(buf, cap, "%llu.%llu %c", h / 100, h / 10 % 10, prefix[u]);
	else
		VG_(snprintf)(buf, cap, "%llu.%02llu %c", h / 100, h % 100, prefix[u]);
}

static void draw(UInt ms, ULong blocks)
{
	HChar line[LINE_MAX + 2], count[32];
	Bool insns = spy_cfg.tool == SPY_COUNT;
	Int n;

	count_str(count, sizeof(count), insns ? cnt_instructions() : blocks);
	n = VG_(snprintf)(line, LINE_MAX, "\r%.64s: %u.%u s, %s %s", progress_label, ms / 1000,
			  ms / 100 % 10, count, insns ? "instructions" : "blocks");
	if (spy_cfg.tool != SPY_COUNT) {
		ULong bytes = spy_cfg.tool == SPY_LOOP ? loop_shadow_bytes() : sh_bytes_in_use();

		n += VG_(snprintf)(line + n, LINE_MAX - n, ", shadow %llu MiB", bytes >> 20);
	}
	/* Spaces over what is left of a longer line before. */
	while (n <= shown && n < LINE_MAX)
		line[n++] = ' ';
	shown = n - 1;	/* without the '\r' */
	put(line, n);
}

void progress_tick(ULong blocks_done)
{
	UInt ms;

	if (!on || blocks_done < next_blocks)
		return;
	next_blocks = blocks_done + BLOCKS_APART;
	ms = VG_(read_millisecond_timer)();
	if (ms < next_ms || !line_start)
		return;
	next_ms = ms + PERIOD_MS;
	draw(ms, blocks_done);
}

/* The last byte of count at buf in the client, or -1 if unreadable. */
static Int last_byte(Addr buf, SizeT count)
{
	if (!count || !VG_(am_is_valid_for_client)(buf + count - 1, 1, VKI_PROT_READ))
		return -1;
	return *(const UChar *)(buf + count - 1);
}

void progress_syscall(UInt sysno, const UWord *args)
{
	Int c = -1;

	if (!on || (sysno != __NR_write && sysno != __NR_writev) || args[0] < 1 || args[0] > 2 ||
	    !shares[args[0]])
		return;
	progress_clear();
	if (sysno == __NR_write) {
		c = last_byte(args[1], args[2]);
	} else {
		const struct vki_iovec *iov = (const struct vki_iovec *)args[1];
		UWord i = args[2];

		/* The last non-empty buffer's last byte. */
		while (c < 0 && i > 0 && i <= 1024 &&
		       VG_(am_is_valid_for_client)((Addr)&iov[i - 1], sizeof(*iov), VKI_PROT_READ)) {
			i--;
			c = last_byte((Addr)iov[i].iov_base, iov[i].iov_len);
		}
	}
	if (c >= 0)
		line_start = c == '\n';
}

void progress_clear(void)
{
	HChar line[LINE_MAX + 2];
	Int n = 0;

	if (!shown)
		return;
	line[n++] = '\r';
	while (n <= shown)
		line[n++] = ' ';
	line[n++] = '\r';
	shown = 0;
	put(line, n);
}

void progress_after_fork(void)
{
	on = False;
	shown = 0;
}
