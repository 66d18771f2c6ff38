#!/bin/bash
# security.sh -- part of suite "systemd": the sandboxing of the shipped
# units (units/*.service), by systemd-analyze security --offline=true.
#
#   security/UNIT                  its overall exposure is at most the
#                                  ceiling below (the score docs/sandboxing.md
#                                  publishes): a setting dropped or
#                                  weakened raises it and fails here
#   security/units-listed          every units/*.service has a ceiling
#   security/prometheus-as-faultd  mtag-prometheus.service (mtagctl as
#                                  root) is, check by check, exposed no
#                                  more than mtag-faultd.service
#
# Run by tests/ts/systemd/run, or alone: tests/ts/systemd/security.sh.
. "$(dirname "$0")/../../functions.sh"
set -u
cd "$TOP" || exit 1

# UNIT and its ceiling (0.0 best .. 10.0 worst), as systemd 252 scores it.
CEILINGS='
mtag-cpu-preferred.service 1.1
mtag-faultd.service        1.3
mtag-prometheus.service    1.0
mtag-packages.service      0.4
'

if ! command -v systemd-analyze >/dev/null; then
	t_skip security "no systemd-analyze on this host"
	return 0 2>/dev/null || exit 0
fi
ver=$(systemd-analyze --version | awk 'NR == 1 {print $2}')
if [ "${ver:-0}" -lt 250 ]; then
	# --offline= and --json= of "security" came with systemd 250.
	t_skip security "systemd $ver: systemd-analyze security --offline needs 250 or later"
	return 0 2>/dev/null || exit 0
fi

# exposure FILE -- the overall exposure of a unit file, e.g. "1.3".
exposure() {
	systemd-analyze security --offline=true --no-pager "$1" 2>/dev/null |
		sed -n 's/^.*Overall exposure level for [^:]*: \([0-9.]*\) .*/\1/p'
}

missing=""
for f in units/*.service; do
	u=${f##*/}
	max=$(awk -v u="$u" '$1 == u {print $2}' <<<"$CEILINGS")
	if [ -z "$max" ]; then
		missing="$missing $u"
		continue
	fi
	got=$(exposure "$f")
	if [ -z "$got" ]; then
		t_fail "security/$u" "systemd-analyze security gave no exposure level for $f"
	elif awk -v g="$got" -v m="$max" 'BEGIN { exit !(g <= m) }'; then
		t_pass "security/$u"
		t_info "$u: exposure $got (ceiling $max)"
	else
		t_fail "security/$u" "exposure $got, above its ceiling $max: systemd-analyze security --offline=true $f"
	fi
done
[ -z "$missing" ] && t_pass security/units-listed ||
	t_fail security/units-listed "no exposure ceiling in tests/ts/systemd/security.sh for:$missing"

# Check by check: no setting of mtag-prometheus.service is exposed more
# than the same setting of mtag-faultd.service.
worse=$(python3 - units/mtag-faultd.service units/mtag-prometheus.service <<'PY'
import json, subprocess, sys

def checks(path):
    out = subprocess.run(["systemd-analyze", "security", "--offline=true", "--json=short", path],
                         capture_output=True, text=True, check=True).stdout
    return {c["name"]: float(c["exposure"] or 0) for c in json.loads(out)}

f, p = checks(sys.argv[1]), checks(sys.argv[2])
for name in sorted(p):
    if p[name] > f.get(name, 0.0):
        print(f"{name} {p[name]} (faultd {f.get(name, 0.0)})")
PY
)
rc=$?
if [ $rc -ne 0 ]; then
	t_fail security/prometheus-as-faultd "systemd-analyze security --json failed"
elif [ -n "$worse" ]; then
	t_fail security/prometheus-as-faultd "more exposed than mtag-faultd.service: $(tr '\n' ';' <<<"$worse")"
else
	t_pass security/prometheus-as-faultd
fi
return 0 2>/dev/null || exit 0
