# html-lib.sh - helpers for the tests of the HTML pages (sourced after
# lib.sh): open pages in one headless Chromium, and read what their
# scripts drew from the DOM it dumps.

INK=$TOP/build/tools/png_ink
CHROMIUM=$(command -v chromium || command -v chromium-browser)

# needs_chromium: the rest of this file opens pages; without Chromium,
# the file says so and ends.
needs_chromium() {
	if [ -z "$CHROMIUM" ] || ! "$CHROMIUM" --version >/dev/null 2>&1; then
		skip "headless Chromium is not installed: scripts/install-deps installs Debian's chromium"
		done_testing
		exit
	fi
}

# open_pages NAME FILE [NAME FILE]...: each FILE in one headless Chromium,
# started once for them all (a start costs a second or two of CPU; the
# pages, a fraction of that each). They are loaded one after another in
# one tab, 1280x900; once a page's load event fired (its script draws it
# at DOMContentLoaded), $TMP/NAME.dom is its DOM as --dump-dom
# writes it, $TMP/NAME.png a screenshot of its first 1280x900 pixels, and
# $TMP/NAME.console what it wrote on the console, a line a message:
# console calls, uncaught exceptions and the browser's own messages (the
# CONSOLE lines of Chromium's log). $TMP/NAME.status is 0 once all three
# are written. $TMP/chromium.ran is there once Chromium opened a tab;
# Chromium's own log is $TMP/chromium.log. A Perl script
# drives it over --remote-debugging-pipe (the DevTools protocol).
open_pages() {
	cat >"$TMP/open_pages.pl" <<'EOF'
use strict;
use warnings;
use JSON::PP;
use MIME::Base64;
use POSIX ();
my ($tmp, $chromium, @pages) = @ARGV;
my $json = JSON::PP->new->utf8->canonical;
# Chromium reads the protocol from its fd 3 and writes it to its fd 4.
pipe(my $cmd_r, my $cmd_w) or die "pipe: $!";
pipe(my $ev_r, my $ev_w) or die "pipe: $!";
my $pid = fork() // die "fork: $!";
if ($pid == 0) {
	# Above 4 first, so that neither dup2 is one of an fd onto itself
	# (which would leave it closed on exec, as Perl opens them).
	my ($r, $w) = (POSIX::dup(fileno $cmd_r), POSIX::dup(fileno $ev_w));
	POSIX::dup2($r, 3) // die; POSIX::dup2($w, 4) // die;
	POSIX::close($_) for $r, $w;
	open STDOUT, '>', '/dev/null'; open STDERR, '>', "$tmp/chromium.log";
	exec {$chromium} $chromium, '--headless=new', '--no-sandbox', '--disable-gpu', '--no-first-run',
		"--user-data-dir=$tmp/chromium", '--enable-logging=stderr', '--v=0',
		'--window-size=1280,900', '--remote-debugging-pipe', 'about:blank';
	die "cannot start $chromium: $!\n";
}
close $cmd_r; close $ev_w;
$SIG{PIPE} = 'IGNORE';
my ($next, $buf, %reply, %console, %loaded) = (0, '');

sub send_cmd {
	my ($session, $method, $params) = @_;
	my $id = ++$next;
	my %m = (id => $id, method => $method, params => $params // {});
	$m{sessionId} = $session if defined $session;
	syswrite($cmd_w, $json->encode(\%m) . "\0") or die "Chromium does not read: $!\n";
	return $id;
}
# One message in: a long base64 string (a screenshot, a DOM) is taken out
# before the rest is decoded, which Perl's own JSON decoder does slowly.
sub receive {
	my ($at, $from) = (0, 0);
	while (($at = index($buf, "\0", $from)) < 0) {
		$from = length $buf;
		sysread($ev_r, $buf, 1 << 20, length $buf) or die "Chromium ended\n";
	}
	my $raw = substr($buf, 0, $at);
	substr($buf, 0, $at + 1) = '';
	my $blob;
	$raw =~ s/"(data|value)":"([A-Za-z0-9+\/=\\]{1024,})"/$blob = $2; "\"$1\":\"\""/e;
	my $m = $json->decode($raw);
	if (defined $blob) {
		$blob =~ tr/\\//d;
		$m->{blob} = decode_base64($blob);
	}
	my $s = $m->{sessionId} // '';
	if (defined $m->{id}) {
		$reply{$m->{id}} = $m;
	} elsif ($m->{method} eq 'Runtime.consoleAPICalled') {
		my $p = $m->{params};
		my $text = join ' ', map { $_->{value} // $_->{description} // $_->{type} } @{$p->{args}};
		push @{$console{$s}}, "CONSOLE $p->{type}: $text";
	} elsif ($m->{method} eq 'Runtime.exceptionThrown') {
		my $d = $m->{params}{exceptionDetails};
		my $text = $d->{exception}{description} // $d->{text};
		push @{$console{$s}}, "CONSOLE exception: $text, source: " . ($d->{url} // '') . ' (' . ($d->{lineNumber} + 1) . ')';
	} elsif ($m->{method} eq 'Log.entryAdded') {
		my $e = $m->{params}{entry};
		push @{$console{$s}}, "CONSOLE $e->{level} ($e->{source}): $e->{text}, source: " . ($e->{url} // '');
	} elsif ($m->{method} eq 'Page.lifecycleEvent' && $m->{params}{name} eq 'load') {
		$loaded{$s}{$m->{params}{loaderId}} = 1;
	}
}
# call [SESSION,] METHOD, PARAMS: its result; an error ends the page.
sub call {
	my $id = send_cmd(@_);
	receive() until $reply{$id};
	my $r = delete $reply{$id};
	die "$_[1]: $r->{error}{message}\n" if $r->{error};
	my $res = $r->{result};
	$res->{blob} = $r->{blob} // do {
		my $b = $res->{data} // $res->{result}{value};
		defined $b ? decode_base64($b) : undef;
	};
	return $res;
}
sub put {
	my ($path, $data) = @_;
	open my $f, '>:raw', $path or die "$path: $!\n";
	print $f $data;
	close $f or die "$path: $!\n";
}

my $dom = q{(() => {
	const s = (document.doctype ? new XMLSerializer().serializeToString(document.doctype) + '\n' : '') +
		document.documentElement.outerHTML + '\n';
	const b = new TextEncoder().encode(s);
	let bin = '';
	for (let i = 0; i < b.length; i += 0x8000)
		bin += String.fromCharCode.apply(null, b.subarray(i, i + 0x8000));
	return btoa(bin);
})()};
my ($failed, $s) = (0);
while (my ($name, $file) = splice @pages, 0, 2) {
	my $ok = eval {
		local $SIG{ALRM} = sub { die "no page in 60 s\n" };
		alarm 60;
		# A tab, 1280x900, for the pages one after another (a tab of its
		# own each would start a renderer each).
		unless (defined $s) {
			my $target = call(undef, 'Target.createTarget', {url => 'about:blank'})->{targetId};
			$s = call(undef, 'Target.attachToTarget', {targetId => $target, flatten => JSON::PP::true})->{sessionId};
			call($s, $_) for qw(Page.enable Runtime.enable Log.enable);
			call($s, 'Page.setLifecycleEventsEnabled', {enabled => JSON::PP::true});
			call($s, 'Emulation.setDeviceMetricsOverride',
				{width => 1280, height => 900, deviceScaleFactor => 1, mobile => JSON::PP::false});
			put("$tmp/chromium.ran", '');
		}
		$console{$s} = [];
		my $nav = call($s, 'Page.navigate', {url => "file://$file"});
		die "$file: $nav->{errorText}\n" if $nav->{errorText};
		receive() until $loaded{$s}{$nav->{loaderId}};
		my $d = call($s, 'Runtime.evaluate', {expression => $dom, returnByValue => JSON::PP::true});
		die "its DOM: " . ($d->{exceptionDetails}{text} // 'no value') . "\n" unless defined $d->{blob};
		my $png = call($s, 'Page.captureScreenshot', {format => 'png'});
		put("$tmp/$name.dom", $d->{blob});
		put("$tmp/$name.png", $png->{blob});
		put("$tmp/$name.console", join '', map { "$_\n" } @{$console{$s}});
		alarm 0;
		1;
	};
	alarm 0;
	put("$tmp/$name.status", $ok ? "0\n" : "1\n");
	next if $ok;
	print STDERR "open_pages: $name: $@";
	$failed = 1;
	last if $@ eq "Chromium ended\n";
	undef $s;	# the next page in a new tab
}
eval { alarm 10; local $SIG{ALRM} = sub { die }; send_cmd(undef, 'Browser.close'); waitpid($pid, 0); alarm 0 };
kill 'KILL', $pid if waitpid($pid, POSIX::WNOHANG()) == 0;
exit $failed;
EOF
	bounded $((60 + 30 * $# / 2)) perl "$TMP/open_pages.pl" "$TMP" "$CHROMIUM" "$@" 2>"$TMP/open_pages.log"
	_st=$?
	while [ $# -ge 2 ]; do
		[ -s "$TMP/$1.status" ] || echo "$_st" >"$TMP/$1.status"
		touch "$TMP/$1.dom" "$TMP/$1.console"
		shift 2
	done
	return $_st
}

# chromium_ran NAME: after open_pages. Where Chromium cannot run at all
# (it opened no tab, and dumped no DOM of NAME), the file says so and
# ends. A page it could not open, where it runs, is a failure.
chromium_ran() {
	if [ ! -e "$TMP/chromium.ran" ] && [ ! -s "$TMP/$1.dom" ]; then
		skip "Chromium cannot run here: $(cat "$TMP/chromium.log" "$TMP/open_pages.log" 2>/dev/null | grep -v -m 1 dbus)"
		done_testing
		exit
	fi
}

# ink NAME: the share of NAME's screenshot that is not its background.
ink() { "$INK" "$TMP/$1.png" | awk '{ print $3 }'; }

# drawn NAME: the checks every page gets, once open_pages opened it.
drawn() {
	chromium_ran "$1"
	ok "$(cat "$TMP/$1.status")" "$1: Chromium opens the page"
	is "$(cat "$TMP/$1.console")" "" "$1: no console message"
	like "$(cat "$TMP/$1.dom")" '<html [^>]*data-render-ms="[0-9.]+"' "$1: its script drew it to the end"
	within "$(ink "$1")" 0.02 1 "$1: its screenshot is not blank"
}

# first_pair DOM: the first pair's summary as the text report writes it
# ("first context  RELATION  second context"), from the elements the
# script makes.
first_pair() {
	grep -o '<span class="chain">[^<]*</span><span class="rel">[^<]*</span><span class="chain">[^<]*' "$1" |
		head -n 1 | sed 's|<span class="chain">||; s|</span><span class="rel">|  |; s|</span><span class="chain">|  |'
}
# top_pair TEXT-REPORT: the line under #1.
top_pair() { sed -n '/^#1 /{n;s/^  //;p;q;}' "$1"; }
# section_of N DOM: the page's Nth section, alone (page.js numbers them s1...).
section_of() { sed "s/<section /\n&/g" "$2" | sed -n "/^<section id=\"s$1\"/p"; }
