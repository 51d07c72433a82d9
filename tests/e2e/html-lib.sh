# html-lib.sh - helpers for the tests of the HTML pages (sourced after
# lib.sh): open a page in headless Chromium, and read what its script
# drew from the DOM Chromium dumps.

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

# open_page NAME FILE: FILE in headless Chromium. $TMP/NAME.dom is its DOM
# once its scripts ran, $TMP/NAME.png a screenshot of its first 1280x900
# pixels, $TMP/NAME.console what it wrote on the console: Chromium logs
# each console message, uncaught exceptions too, as a CONSOLE line.
open_page() {
	bounded 120 "$CHROMIUM" --headless=new --no-sandbox --disable-gpu --no-first-run \
		--user-data-dir="$TMP/chromium" --enable-logging=stderr --v=0 --dump-dom \
		--screenshot="$TMP/$1.png" --window-size=1280,900 "file://$2" >"$TMP/$1.dom" 2>"$TMP/$1.log"
	_st=$?
	grep ':CONSOLE' "$TMP/$1.log" >"$TMP/$1.console"
	return $_st
}

# chromium_ran NAME STATUS: after open_page NAME ended with STATUS. Where
# Chromium cannot run at all (it failed, and dumped no DOM), the file
# says so and ends.
chromium_ran() {
	if [ "$2" -ne 0 ] && [ ! -s "$TMP/$1.dom" ]; then
		skip "Chromium cannot run here (status $2): $(grep -v -m 1 dbus "$TMP/$1.log")"
		done_testing
		exit
	fi
}

# ink NAME: the share of NAME's screenshot that is not its background.
ink() { "$INK" "$TMP/$1.png" | awk '{ print $3 }'; }

# drawn NAME FILE: open the page and make the checks every page gets.
drawn() {
	open_page "$1" "$2"
	_drawn=$?
	chromium_ran "$1" "$_drawn"
	ok "$_drawn" "$1: Chromium opens the page"
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
