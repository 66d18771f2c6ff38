#!/bin/bash
# demo.sh -- inside the guest, for "make demo": nginx under the policy
# "sync", one ordinary request, one that overflows a heap buffer, and what
# the system shows of it.  Every line for the person starts with "DEMO| "
# (tools/demo prints those from the serial console).
set -u
. "$(dirname "$0")/lib.sh"
say() { printf 'DEMO| %s\n' "$*"; }
ev_count_demo() { if [ -f "$EV" ]; then wc -l <"$EV"; else echo 0; fi; }
t0=$(date +%s)

say "guest up after $(uptime_s)s: kernel $(uname -r), libc6 $LIBC_VERSION"
if [ "$HAVE_LAUNCHER" = yes ]; then
	printf '# mtag demo\nnginx.service sync\n' >/etc/mtag/policy.conf
	say "# /etc/mtag/policy.conf:  nginx.service sync"
	say "\$ systemctl daemon-reload && systemctl restart nginx"
else
	say "(no mtag-launcher in this image: setting GLIBC_TUNABLES=glibc.mem.tagging=3 directly)"
	mkdir -p /run/systemd/system/nginx.service.d
	printf '[Service]\nEnvironment=GLIBC_TUNABLES=glibc.mem.tagging=3\n' >/run/systemd/system/nginx.service.d/zz-demo.conf
fi
systemctl daemon-reload
systemctl restart nginx
wait_for 30 svc_ok nginx
m=$(main_pid nginx.service)
e=$(applied_entry nginx.service)
[ -n "$e" ] && say "launcher (journal): $(grep -E '^MTAG_(UNIT|MODE|POLICY_SOURCE|TUNABLE)=' <<<"$e" | tr '\n' ' ')"
for p in $m $(nginx_workers); do
	say "  $(ps -o args= -p "$p" | cut -c1-40) [pid $p]  MTE_TCF: $(tcf_of "$p")"
done
say ""
say "\$ printf 'GET / HTTP/1.0\\r\\n\\r\\n' > localhost:80"
say "  -> $(http_get /)"
say ""
n0=$(if [ -f "$EV" ]; then wc -l <"$EV"; else echo 0; fi)
errl=$(wc -l </var/log/nginx/error.log)
k0=$(kmsg_count)
w_before=$(nginx_workers)
say "\$ printf 'GET /MTAGBUG-overflow HTTP/1.0\\r\\n\\r\\n' > localhost:80"
say "  (the test's LD_PRELOAD library sees MTAGBUG-overflow in the request the worker"
say "   reads and writes 40 bytes into a 32-byte malloc() block, in that worker)"
a=$(http_get /MTAGBUG-overflow)
say "  -> ${a:-no answer: the connection was closed}"
wait_for 10 bash -c "tail -n +$((errl + 1)) /var/log/nginx/error.log | grep -q 'exited on signal'"
wait_for 5 bash -c "dmesg | tail -n +$((k0 + 1)) | grep -q 'tag check fault'"
k=$(kmsg_since "$k0" | grep -m1 'tag check fault' | sed 's/^\[ *[0-9.]*\] //')
say ""
say "kernel:   ${k:-(no fault report: this is not the mtag kernel)}"
s=$(tail -n +"$((n0 + 1))" "$EV" 2>/dev/null | grep -m1 SIGSEGV | sed 's/^mtaginject: //')
[ -n "$s" ] && say "signal:   $s  (si_code 9 = SEGV_MTESERR)"
say "nginx:    $(tail -n +$((errl + 1)) /var/log/nginx/error.log | grep -m1 'exited on signal' | sed 's/^[0-9/]* [0-9:]* //')"
wait_for 10 bash -c "[ -n \"\$(pgrep -P $m)\" ]"
w_after=$(nginx_workers)
new=""; for p in $w_after; do grep -qw "$p" <<<"$w_before" || new=$p; done
say "workers:  before: $w_before  after: $w_after(pid ${new:-?} respawned by the master; MTE_TCF: $(tcf_of "${new:-0}"))"
say ""
say "\$ printf 'GET / HTTP/1.0\\r\\n\\r\\n' > localhost:80"
r=$(http_get /)
say "  -> $r"
if [[ "$r" == *" 200 "* ]] && tail -n +$((errl + 1)) /var/log/nginx/error.log | grep -q 'exited on signal 11'; then
	say "nginx still answers: the overflow was stopped at the faulting write, and only that worker died."
else
	say "UNEXPECTED: see the console log"
fi

# ---- the roll-out path: report mode
if [ "$HAVE_LAUNCHER" = yes ] && [ "$HAVE_REPORT" = yes ]; then
	say ""
	say "---- report mode: what would MTE catch, without an outage?"
	printf '# mtag demo\nnginx.service report\n' >/etc/mtag/policy.conf
	say "# /etc/mtag/policy.conf:  nginx.service report"
	say "\$ systemctl daemon-reload && systemctl restart nginx"
	systemctl daemon-reload
	systemctl restart nginx
	wait_for 30 svc_ok nginx
	e=$(applied_entry nginx.service)
	[ -n "$e" ] && say "launcher (journal): $(grep -E '^MTAG_(UNIT|MODE|POLICY_SOURCE|TUNABLE|REPORT|REENABLE_NSEC)=' <<<"$e" | tr '\n' ' ')"
	w_before=$(nginx_workers)
	for p in $(main_pid nginx.service) $w_before; do
		say "  $(ps -o args= -p "$p" | cut -c1-40) [pid $p]  MTE_TCF: $(tcf_of "$p")  MTE_Report: $(status_of "$p" MTE_Report)"
	done
	n0=$(ev_count_demo); k0=$(kmsg_count)
	say "\$ printf 'GET /MTAGBUG-overflow HTTP/1.0\\r\\n\\r\\n' > localhost:80"
	a=$(http_get /MTAGBUG-overflow)
	say "  -> ${a:-no answer}   (nginx's own answer: the request was served)"
	wait_for 5 bash -c "dmesg | tail -n +$((k0 + 1)) | grep -q 'tag check fault'"
	k=$(kmsg_since "$k0" | grep -m1 'tag check fault' | sed 's/^\[ *[0-9.]*\] //')
	say "kernel:   ${k:-(no report)}"
	t=$(tail -n +"$((n0 + 1))" "$EV" 2>/dev/null | grep -m1 'trigger=' | sed -n 's/.* pid=\([0-9]*\) tid=\([0-9]*\) .*/\1\/task\/\2/p')
	[ -n "$t" ] && say "/proc/${t%%/*}/status: MTE_TCF $(tcf_of "${t%%/*}")  MTE_Report $(status_of "$t" MTE_Report)  MTE_ReportChecking $(status_of "$t" MTE_ReportChecking)"
	say "workers:  before: $w_before  after: $(nginx_workers)(none died)"
	if [[ "$a" == HTTP/1.?\ * ]] && [[ "$k" == *"(report mode"* ]] && [ "$(nginx_workers)" = "$w_before" ]; then
		say "report mode: the bug was reported with its address and tags, nginx answered, nothing died."
	else
		say "UNEXPECTED (report mode): see the console log"
	fi
fi
say "(demo inside the guest took $(( $(date +%s) - t0 ))s; powering off)"
