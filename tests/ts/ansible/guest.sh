#!/bin/bash
# guest.sh -- inside the booted guest (tests/ts/ansible/run): the mtag role
# (ansible/roles/mtag through ansible/site.yml) run by ansible-playbook
# with the local connection, as root and as an unprivileged user ("deploy")
# with become (sudo), against the running system.  The share holds
# ansible/ (the role and playbook), test/ (tests/ts/ansible: inventory, vars,
# readme-task.yml) and debs/ (the image's mtag .debs, for mtag_local_debs).
# PASS/FAIL lines go to results/results.txt; each run's output to
# results/NAME.log.
set -u
S=/mnt/mtagtest
R=$S/results
mkdir -p "$R"
RES=$R/results.txt
: >"$RES"
pass() { echo "PASS: $1" | tee -a "$RES"; }
fail() { echo "FAIL: $1: $2" | tee -a "$RES"; }
info() { echo "# $*" | tee -a "$RES"; }

if ! command -v ansible-playbook >/dev/null || ! command -v sudo >/dev/null; then
	fail ansible/guest "no ansible-playbook or sudo in the image (EXTRA_PACKAGES of tests/ts/ansible/run)"
	touch "$R/ansible.done"
	exit 0
fi
W=/srv/mtag-ansible
rm -rf "$W"
mkdir -p "$W/debs"
cp -r "$S/ansible" "$S/test" "$W/"
debs=""
while read -r d; do
	cp "$S/debs/$d" "$W/debs/" && debs="$debs${debs:+,}$W/debs/$d"
done <"$S/debs/order"
chmod -R a+rX "$W"
id deploy >/dev/null 2>&1 || useradd -m -s /bin/bash deploy
printf 'deploy ALL=(ALL:ALL) NOPASSWD: ALL\n' >/etc/sudoers.d/deploy
chmod 0440 /etc/sudoers.d/deploy
info "ansible-core $(dpkg-query -W -f='${Version}' ansible-core), kernel $(uname -r), debs: $debs"

# Each ansible-playbook run costs 11 s to start and 4-10 s a task under
# TCG, and the apt module's .deb install about 30 s an item (python-apt
# opening the cache), so only the first run gathers facts and installs
# all the .debs (already in the image: "ok"); the later ones install the
# mtag-launcher .deb only (apt under become) and skip fact gathering,
# which the role uses only for its repository step (not enabled here).
launcher_deb=$(tr ',' '\n' <<<"$debs" | grep '/mtag-launcher_' | head -1)
PLAY_DEBS=$debs PLAY_GATHERING=implicit
ENVV=(ANSIBLE_NOCOLOR=1 ANSIBLE_FORCE_COLOR=0 ANSIBLE_RETRY_FILES_ENABLED=0
      ANSIBLE_CONFIG="$W/ansible/ansible.cfg" ANSIBLE_ROLES_PATH="$W/ansible/roles"
      ANSIBLE_INVENTORY="$W/test/inventory/hosts.yml")
# play NAME USER PLAYBOOK [ARGS...]: one ansible-playbook run as USER
# (root: directly; another user: through sudo -u, become by sudo), output
# in results/NAME.log; prints the recap line; returns its exit status.
play() {
	local name=$1 user=$2 pb=$3 t0 rc recap
	shift 3
	t0=$(date +%s)
	local envv=("${ENVV[@]}" MTAG_TEST_DEBS="$PLAY_DEBS" ANSIBLE_GATHERING="$PLAY_GATHERING")
	if [ "$user" = root ]; then
		(cd "$W/ansible" && env "${envv[@]}" ansible-playbook "$pb" "$@") >"$R/$name.log" 2>&1
	else
		(cd "$W/ansible" && sudo -u "$user" -H env "${envv[@]}" ansible-playbook "$pb" "$@") >"$R/$name.log" 2>&1
	fi
	rc=$?
	recap=$(grep -E '^mtag-guest +:' "$R/$name.log" | tail -1 | tr -s ' ')
	info "$name (as $user): exit $rc in $(( $(date +%s) - t0 ))s: ${recap:-no recap}"
	return $rc
}
# count NAME FIELD: FIELD=N of the recap of run NAME.
count() { grep -E '^mtag-guest +:' "$R/$1.log" | tail -1 | grep -o "$2=[0-9]*" | cut -d= -f2; }
# verdicts UNIT...: "unit verdict" per line from mtagctl status --json.
verdicts() { mtagctl status --json --no-pager "$@" | jq -r '.[] | "\(.unit) \(.verdict)"'; }
# dropin NAME: owner, mode and entries of /etc/mtag/policy.d/NAME.conf.
dropin() { stat -c '%U:%G %a' "/etc/mtag/policy.d/$1.conf" && grep -v '^#' "/etc/mtag/policy.d/$1.conf"; }

# 1. As root: the packages (already there: ok), the kernel check, both
#    groups' drop-ins, daemon-reload, restarts, verify.
if play root root site.yml; then
	if [ "$(count root failed)" = 0 ] && [ "${CHANGED:=$(count root changed)}" -gt 0 ]; then
		pass "ansible/root/run (changed=$CHANGED)"
	else
		fail ansible/root/run "recap not as expected (failed=0, changed>0)"
	fi
else
	fail ansible/root/run "exit status $? (log: results/root.log): $(grep -E '^(fatal|failed):' "$R/root.log" | head -3 | cut -c1-400)"
fi
grep -q "MTE present: True; mtag's kernel: True" "$R/root.log" &&
	pass ansible/root/kernel-check || fail ansible/root/kernel-check "the check after the reboot did not pass or did not run"
w=$(dropin 50-web 2>&1) c=$(dropin 50-cache 2>&1)
if [ "$w" = "root:root 644
nginx.service sync heap=on" ] && [ "$c" = "root:root 644
memcached.service async upgrade=no" ]; then
	pass ansible/root/policy-files
else
	fail ansible/root/policy-files "50-web: $w; 50-cache: $c"
fi
v=$(verdicts nginx.service memcached.service | tr '\n' ';')
[ "$v" = "nginx.service protected;memcached.service protected;" ] &&
	pass "ansible/root/protected ($v)" || fail ansible/root/protected "mtagctl status: $v"

PLAY_DEBS=$launcher_deb PLAY_GATHERING=explicit

# 2. The README's task under become as an unprivileged user: refused
#    (what the role's staged validation is for).
if play readme deploy "$W/test/readme-task.yml"; then
	fail ansible/readme-task-fails-under-become "it passed: the test no longer shows the problem"
elif grep -q 'failed to validate' "$R/readme.log" && grep -q 'not owned by root' "$R/readme.log"; then
	pass ansible/readme-task-fails-under-become
	info "$(grep -o 'refused: [^"]*' "$R/readme.log" | head -1 | cut -c1-300)"
else
	fail ansible/readme-task-fails-under-become "failed otherwise (log: results/readme.log)"
fi
[ ! -e /etc/mtag/policy.d/40-readme.conf ] && pass ansible/readme-task-left-nothing ||
	fail ansible/readme-task-left-nothing "/etc/mtag/policy.d/40-readme.conf exists"

# 3. As deploy with become: a policy change (memcached to sync): the
#    validation under become, the restart, verify.
if play deploy deploy site.yml -e "@$W/test/change.yml"; then
	[ "$(count deploy failed)" = 0 ] && [ "$(count deploy changed)" -gt 0 ] &&
		pass "ansible/become/run (changed=$(count deploy changed))" ||
		fail ansible/become/run "recap not as expected (failed=0, changed>0)"
else
	fail ansible/become/run "exit status $? (log: results/deploy.log): $(grep -E '^(fatal|failed):' "$R/deploy.log" | head -3 | cut -c1-400)"
fi
c=$(dropin 50-cache 2>&1)
[ "$c" = "root:root 644
memcached.service sync" ] && pass ansible/become/policy-file || fail ansible/become/policy-file "50-cache: $c"
v=$(verdicts memcached.service | tr '\n' ';')
m=$(systemctl show -p MainPID --value memcached.service)
[ "$v" = "memcached.service protected;" ] && grep -q '^MTE_TCF:.*sync' "/proc/$m/status" &&
	pass "ansible/become/restarted-in-sync ($v)" ||
	fail ansible/become/restarted-in-sync "mtagctl status: $v; $(grep MTE_TCF "/proc/$m/status" 2>&1)"

# 4. The same again as deploy: nothing to change.  The policy, the
#    restarts and the verify step are what a second run could change (the
#    install and kernel steps change nothing on a host already done), so
#    the second run is those parts only.
if play again deploy site.yml -e "@$W/test/change.yml" --tags mtag_policy,mtag_verify; then
	[ "$(count again changed)" = 0 ] && pass ansible/become/idempotent ||
		fail ansible/become/idempotent "changed=$(count again changed) on a second run (log: results/again.log)"
else
	fail ansible/become/idempotent "exit status $? (log: results/again.log)"
fi

# 5. The verify step fails the play for a service not as asked: a policy
#    change without the restart.
if play norestart deploy site.yml -e "@$W/test/norestart.yml" --tags mtag_policy,mtag_verify; then
	fail ansible/verify-fails "the play passed with memcached.service not as asked"
elif grep -q 'memcached.service: not protected: .*restart needed' "$R/norestart.log"; then
	pass ansible/verify-fails
	info "$(grep -o 'memcached.service: not protected: [^";]*' "$R/norestart.log" | head -1 | cut -c1-300)"
else
	fail ansible/verify-fails "failed, but not naming memcached.service (log: results/norestart.log)"
fi

# 6. A policy error stops the play before anything goes live.
before=$(cat /etc/mtag/policy.d/50-web.conf)
if play bad root site.yml -e "@$W/test/bad.yml" --tags mtag_policy; then
	fail ansible/policy-error-stops "the play passed with an invalid policy"
elif grep -q 'policy.d/50-web.conf:[0-9]*: ' "$R/bad.log" && [ "$before" = "$(cat /etc/mtag/policy.d/50-web.conf)" ]; then
	pass ansible/policy-error-stops
	info "$(grep -o 'policy.d/50-web.conf:[0-9]*: [^"\\]*' "$R/bad.log" | head -1 | cut -c1-300)"
else
	fail ansible/policy-error-stops "no file:line in the output, or 50-web.conf changed (log: results/bad.log)"
fi
touch "$R/ansible.done"
