#!/bin/bash
# guest.sh -- inside the guest of suite "lifecycle" (tests/ts/lifecycle/run):
# what an admin does with mtag's repository over a machine's life, one
# phase per boot (the share's "phase" file names it; the test names are
# lifecycle/install/..., lifecycle/update/..., then .../rebuilt/...,
# .../next/..., .../purge/...):
#   install   a fresh Debian machine (no mtag): the repository served by
#             the machine's own nginx on http://127.0.0.1/mtag, the apt
#             lines of docs/repository.md, apt install mtag, a policy;
#             hands the kernel the package put in /boot to the host (the
#             next boot runs it)
#   update    on mtag's kernel: the services protected; Debian's update of
#             libc6 (a second signed repository) installed by apt
#             upgrade; mtagctl status, the Prometheus file and
#             mtag-packages.service (what runs at boot) name what lost
#             its protection.  Then (lifecycle/rebuilt/...) the
#             repository with mtag's rebuild of that update
#             (follow-debian, run on the host before this boot): apt
#             upgrade brings it, a restart protects again; mtag-launcher
#             N -> N+1 keeps the admin's policy.conf; apt purge of the
#             launcher: every service starts unwrapped, no mtag file is
#             left
# PASS/FAIL/SKIP lines go to results/results.txt (the host prints them).
set -u
S=/mnt/mtagtest
R=$S/results
mkdir -p "$R"
RES=$R/results.txt
pass() { echo "PASS: $1" | tee -a "$RES"; }
fail() { echo "FAIL: $1: $2" | tee -a "$RES"; }
info() { echo "# $*" | tee -a "$RES"; }
check() { # NAME WHY CMD...: PASS when CMD succeeds, else FAIL with WHY
	local n=$1 why=$2
	shift 2
	if "$@"; then pass "$n"; else fail "$n" "$why"; fi
}
PHASE=$(cat "$S/phase")
SUITE=$(cat "$S/suite")
P=lifecycle/$PHASE
export DEBIAN_FRONTEND=noninteractive LC_ALL=C.UTF-8
URL=http://127.0.0.1/mtag
PROM=/var/lib/prometheus/node-exporter/mtag.prom
PG_VER=$(ls /etc/postgresql 2>/dev/null | sort -n | tail -n 1)
PG=postgresql@$PG_VER-main.service
SERVICES="memcached.service $PG"
# apt as an admin runs it, unattended: keep an edited conffile (as
# unattended-upgrades does).
APT_GET=(apt-get -q -y -o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold)

ver() { dpkg-query -W -f='${Version}' "$1" 2>/dev/null; }
installed() { [ "$(dpkg-query -W -f='${db:Status-Status}' "$1" 2>/dev/null)" = installed ]; }
# serve DIR NAME: the tree DIR of the share served at http://127.0.0.1/NAME.
serve() {
	rm -rf "/var/www/html/$2"
	cp -r "$S/$1" "/var/www/html/$2"
	systemctl is-active -q nginx || systemctl start nginx
}
# apt_update NAME: apt-get update, and a check NAME that it read nothing but
# verified sources (output in results/apt-update-NAME.log).
apt_update() {
	local log=$R/apt-update-$1.log rc
	apt-get -q update >"$log" 2>&1
	rc=$?
	check "$P/apt-update" "status $rc: $(grep -E '^(W|E|Err):' "$log" | tr '\n' '|')" \
		sh -c "[ $rc = 0 ] && ! grep -Eq '^(W|E|Err):' '$log'"
}
verdict() { mtagctl --json status "$1" 2>/dev/null | jq -r '.[0].verdict + ": " + .[0].reason'; }
restart_all() { local u; for u in $SERVICES; do systemctl restart "$u"; done; sleep 2; }
# protected NAME: every service of SERVICES protected, says mtagctl
protected() {
	local u v ok=1
	for u in $SERVICES; do
		v=$(verdict "$u")
		info "$u: $v"
		case $v in "protected: "*) ;; *) ok=0 ;; esac
	done
	check "$P/$1" "not every one of $SERVICES protected (above)" test $ok = 1
}
# prom_refresh: the Prometheus file written anew now (restart: a run that
# mtag-prometheus.path or .timer started before the last change may still
# be going; start would only wait for it).
prom_refresh() { systemctl restart mtag-prometheus.service; }
# prom_why: when the file lacks a line, what the same command says outside
# the unit's sandbox, and the unit's journal.
prom_why() {
	mtagctl --no-pager status --prometheus="$R/prom-unsandboxed.prom" >/dev/null 2>&1
	info "outside the unit: $(grep '^mtag_lost_protection' "$R/prom-unsandboxed.prom" | tr '\n' '|')"
	journalctl -b -u mtag-prometheus.service -n 6 -o short-monotonic --no-pager | sed 's/^/# /' | tee -a "$RES" >/dev/null
}

# This machine has no network: Debian's own sources are switched off, so
# that apt sees only the repositories served here.
for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources; do
	[ -f "$f" ] || continue
	case $f in */mtag.sources | */debian-update.sources) continue ;; esac
	mv "$f" "$f.off"
done
info "phase $PHASE: kernel $(uname -r), libc6 $(ver libc6), mtag-launcher $(ver mtag-launcher || echo none)"

case $PHASE in
install)
	check "$P/fresh" "mtag is already here (mtag-launcher $(ver mtag-launcher), libc6 $(ver libc6))" \
		sh -c '! dpkg-query -W mtag-launcher >/dev/null 2>&1 && ! dpkg-query -W -f="\${Version}" libc6 | grep -q mtag'
	serve repo mtag
	# The admin's lines, as docs/repository.md has them (python3 in
	# place of curl, which the image does not have).
	fetch() { python3 -c 'import sys, urllib.request; open(sys.argv[2], "wb").write(urllib.request.urlopen(sys.argv[1]).read())' "$1" "$2"; }
	install -d -m 0755 /etc/apt/keyrings
	# This machine's Prometheus node exporter reads its textfile
	# directory (prometheus-node-exporter makes it; mtag-prometheus.service
	# writes there only when it exists).
	install -d -m 0755 /var/lib/prometheus/node-exporter
	fetch "$URL/mtag-archive-keyring.gpg" /etc/apt/keyrings/mtag-archive-keyring.gpg &&
		fetch "$URL/mtag-$SUITE.sources" /etc/apt/sources.list.d/mtag.sources &&
		fetch "$URL/mtag.pref" /etc/apt/preferences.d/mtag.pref
	check "$P/apt-lines" "could not fetch the key, the .sources file or the preferences from $URL" \
		test -s /etc/apt/keyrings/mtag-archive-keyring.gpg -a -s /etc/apt/sources.list.d/mtag.sources -a -s /etc/apt/preferences.d/mtag.pref
	grep -q "^Signed-By: /etc/apt/keyrings/mtag-archive-keyring.gpg" /etc/apt/sources.list.d/mtag.sources
	rc=$?
	check "$P/signed-by" "mtag.sources has no Signed-By: of the key" test $rc = 0
	apt_update install
	t0=$(date +%s)
	"${APT_GET[@]}" install mtag >"$R/install-apt.log" 2>&1
	rc=$?
	check "$P/apt-install-mtag" "apt-get install mtag failed: $(tail -n 5 "$R/install-apt.log" | tr '\n' '|')" test $rc = 0
	info "apt install mtag: $(($(date +%s) - t0))s; $(grep -E '^(Setting up|Unpacking) ' "$R/install-apt.log" | grep -c '^Setting up') packages set up"
	for p in mtag mtag-launcher libc6 libjemalloc2; do info "$p $(ver "$p")"; done
	check "$P/libc6-is-mtag" "libc6 $(ver libc6)" sh -c 'dpkg-query -W -f="\${Version}" libc6 | grep -q "+mtag"'
	check "$P/jemalloc-is-mtag" "libjemalloc2 $(ver libjemalloc2)" sh -c 'dpkg-query -W -f="\${Version}" libjemalloc2 | grep -q "+mtag"'
	kpkg=$(dpkg-query -W -f='${Package} ${db:Status-Status}\n' 'linux-image-*-mtag*' 2>/dev/null | awk '$2 == "installed" {print $1}' | head -n 1)
	krel=${kpkg#linux-image-}
	info "kernel package: $kpkg $(ver "$kpkg")"
	check "$P/kernel-in-boot" "no /boot/vmlinuz-$krel from ${kpkg:-no linux-image-*-mtag package}" test -n "$krel" -a -f "/boot/vmlinuz-$krel"
	# The admin's policy: memcached (started by systemd with the launcher's
	# environment) and PostgreSQL (through pg_ctlcluster, which replaces
	# the environment: the kernel's exec default and mtag's libc6 carry
	# the policy).
	printf '\n# the admin of this machine\nmemcached.service  sync\n%s  sync\n' "$PG" >>/etc/mtag/policy.conf
	mtagctl check >"$R/install-check.log" 2>&1
	rc=$?
	check "$P/policy-checks" "mtagctl check: $(tr '\n' '|' <"$R/install-check.log")" test $rc = 0
	sha256sum /etc/mtag/policy.conf | cut -d' ' -f1 >"$R/policy.sha256"
	systemctl enable -q memcached.service "$PG" 2>"$R/enable.log"
	# What the boot loader would start next: the package's kernel.
	mkdir -p "$R/boot"
	cp "/boot/vmlinuz-$krel" "$R/boot/vmlinuz" && echo "$krel" >"$R/boot/release"
	[ -f "/boot/initrd.img-$krel" ] && cp "/boot/initrd.img-$krel" "$R/boot/initrd.img"
	;;

update)
	krel=$(cat "$S/boot-release")
	check "$P/mtag-kernel" "running $(uname -r), the package installed $krel" test "$(uname -r)" = "$krel"
	check "$P/kernel-has-mte-state" "no MTE_TCF in /proc/self/status" grep -q '^MTE_TCF:' /proc/self/status
	for u in $SERVICES; do systemctl is-active -q "$u" || systemctl start "$u"; done
	protected protected
	# The package's autopkgtest (debian/tests/installed) on this machine,
	# where systemd is PID 1: its service part runs too.
	AUTOPKGTEST_TMP=$(mktemp -d) sh "$S/installed" >"$R/autopkgtest-installed.log" 2>&1
	rc=$?
	grep -E '^(PASS|FAIL|SKIP): ' "$R/autopkgtest-installed.log" | sed 's#^\(PASS\|FAIL\|SKIP\): #\1: lifecycle/autopkgtest/#' | tee -a "$RES" >/dev/null
	check "$P/autopkgtest-installed" "status $rc: $(tail -n 1 "$R/autopkgtest-installed.log")" test $rc = 0
	# Debian's update of libc6 (the stand-in: Debian's own .deb of the
	# base, its version raised) in a second signed repository.
	serve debian-update debian-update
	install -m 0644 "$S/debian-update.gpg" /etc/apt/keyrings/debian-update.gpg
	cat >/etc/apt/sources.list.d/debian-update.sources <<-EOF
	Types: deb
	URIs: http://127.0.0.1/debian-update
	Suites: $SUITE-security
	Components: main
	Signed-By: /etc/apt/keyrings/debian-update.gpg
	EOF
	apt_update update
	next=$(cat "$S/libc6-next")
	apt-cache policy libc6 >"$R/update-policy.txt" 2>&1
	sed 's/^/# /' "$R/update-policy.txt" | tee -a "$RES" >/dev/null
	"${APT_GET[@]}" upgrade >"$R/update-apt.log" 2>&1
	rc=$?
	check "$P/apt-upgrade" "apt-get upgrade failed: $(tail -n 5 "$R/update-apt.log" | tr '\n' '|')" test $rc = 0
	check "$P/debian-update-installed" "libc6 is $(ver libc6), not Debian's $next" test "$(ver libc6)" = "$next"
	restart_all
	v=$(verdict "$PG")
	info "$PG: $v"
	case $v in
	"not protected: libc6 $next is Debian's build: the kernel's exec default is not read by ${PG%.service}'s processes"*) pass "$P/status-names-lost" ;;
	*) fail "$P/status-names-lost" "$PG: $v" ;;
	esac
	info "memcached.service: $(verdict memcached.service) (systemd hands it the tunable itself: a stock glibc reads it)"
	prom_refresh
	grep -F "mtag_lost_protection{unit=\"$PG\",reason=\"libc6\",version=\"$next\"} 1" "$PROM" >/dev/null
	rc=$?
	check "$P/prometheus-lost" "no mtag_lost_protection line for $PG in $PROM: $(grep -E 'lost|is_mtag' "$PROM" | tr '\n' '|')" test $rc = 0
	[ $rc = 0 ] || prom_why
	grep -E '^mtag_(lost_protection|package_is_mtag_build)' "$PROM" | sed 's/^/# /' | tee -a "$RES" >/dev/null
	# What runs at every boot (mtagctl check-packages): one journal entry.
	cur=$(journalctl -n0 --show-cursor 2>/dev/null | sed -n 's/^-- cursor: //p')
	systemctl restart mtag-packages.service
	journalctl --after-cursor="$cur" -u mtag-packages.service -o cat --no-pager >"$R/update-packages.log" 2>&1
	grep -q "libc6 $next is Debian's build" "$R/update-packages.log"
	rc=$?
	check "$P/packages-entry" "mtag-packages.service said: $(tr '\n' '|' <"$R/update-packages.log")" test $rc = 0
	# Its catalog text (mtag.catalog), which journalctl -x shows.
	journalctl -x -b MESSAGE_ID=8ed2fad41e0548cba4545ddcef5db26e --no-pager >"$R/update-catalog.log" 2>&1
	grep -E "Subject: Debian's build, not mtag's: .*libc6" "$R/update-catalog.log" | head -n 1 | sed 's/^/# /' | tee -a "$RES" >/dev/null
	check "$P/packages-entry-catalog" "no catalog text for the entry: $(tail -n 3 "$R/update-catalog.log" | tr '\n' '|')" \
		grep -qE "Subject: Debian's build, not mtag's: .*libc6" "$R/update-catalog.log"

	# mtag's rebuild of Debian's update, published by follow-debian.
	P=lifecycle/rebuilt
	serve repo-rebuilt mtag
	apt_update rebuilt
	"${APT_GET[@]}" upgrade >"$R/rebuilt-apt.log" 2>&1
	rc=$?
	check "$P/apt-upgrade" "apt-get upgrade failed: $(tail -n 5 "$R/rebuilt-apt.log" | tr '\n' '|')" test $rc = 0
	check "$P/rebuild-installed" "libc6 is $(ver libc6), not mtag's rebuild of $next" \
		sh -c "dpkg-query -W -f='\${Version}' libc6 | grep -qx '$next+mtag[0-9]*'"
	info "libc6 $(ver libc6)"
	restart_all
	protected protected-again
	prom_refresh
	check "$P/prometheus-clear" "still lost: $(grep '^mtag_lost_protection' "$PROM" | tr '\n' '|')" \
		sh -c "! grep -q '^mtag_lost_protection{.*} 1' '$PROM'"

	# mtag-launcher N -> N+1, the admin's policy.conf edited.
	n=$(ver mtag-launcher)
	serve repo-next mtag
	P=lifecycle/next
	apt_update next
	"${APT_GET[@]}" upgrade >"$R/next-apt.log" 2>&1
	check "$P/launcher-upgrade" "mtag-launcher still $(ver mtag-launcher): $(tail -n 5 "$R/next-apt.log" | tr '\n' '|')" \
		dpkg --compare-versions "$(ver mtag-launcher)" gt "$n"
	info "mtag-launcher $n -> $(ver mtag-launcher)"
	check "$P/conffile-kept" "policy.conf is not the admin's any more" \
		test "$(sha256sum /etc/mtag/policy.conf | cut -d' ' -f1)" = "$(cat "$R/policy.sha256")"
	check "$P/conffile-new-beside" "no policy.conf.dpkg-dist with the release's new text" \
		grep -q 'mtag-launcher release' /etc/mtag/policy.conf.dpkg-dist
	restart_all
	protected protected-after-launcher-upgrade

	# Purge: every service starts unwrapped, no mtag file is left.
	P=lifecycle/purge
	dpkg-query -L mtag-launcher >"$R/launcher-files.txt"
	"${APT_GET[@]}" purge mtag-launcher >"$R/purge-apt.log" 2>&1
	rc=$?
	check "$P/purge" "apt-get purge failed: $(tail -n 5 "$R/purge-apt.log" | tr '\n' '|')" test $rc = 0
	check "$P/purged" "mtag-launcher is $(dpkg-query -W -f='${db:Status-Abbrev}' mtag-launcher 2>/dev/null)" \
		sh -c '! dpkg-query -W -f="\${db:Status-Status}" mtag-launcher 2>/dev/null | grep -q .'
	systemctl daemon-reload
	restart_all
	bad=
	for u in $SERVICES; do
		systemctl is-active -q "$u" || bad="$bad $u:$(systemctl is-active "$u")"
		systemctl show -p ExecStart "$u" | grep -q mtag-launcher && bad="$bad $u:wrapped"
		systemctl show -p DropInPaths --value "$u" | tr ' ' '\n' | grep mtag | grep -qv mtag-test &&
			bad="$bad $u:drop-in"
	done
	check "$P/unwrapped" "$bad" test -z "$bad"
	left=
	while read -r f; do
		[ -e "$f" ] && [ ! -d "$f" ] && left="$left $f"
	done <"$R/launcher-files.txt"
	for f in /etc/mtag /var/lib/mtag "$PROM" /run/mtag; do [ -e "$f" ] && left="$left $f"; done
	left="$left$(find /run/systemd/generator* /etc/systemd -name '*mtag*' ! -name '*mtag-test*' 2>/dev/null | sed 's/^/ /' | tr -d '\n')"
	check "$P/nothing-left" "left behind:$left" test -z "$left"
	info "libc6 $(ver libc6) stays (a libc6 is not removed with the launcher; Debian's next update replaces it)"
	;;
*) fail "$P" "unknown phase" ;;
esac
touch "$R/$PHASE.done"
