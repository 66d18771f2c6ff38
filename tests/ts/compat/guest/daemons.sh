# shellcheck shell=bash
# daemons.sh -- per daemon of tests/ts/compat/daemons.list: setup_NAME (once,
# before its first start: what the daemon needs to serve on this isolated
# guest, e.g. a port that does not clash with nginx, a module to serve, a
# user to log in as) and smoke_NAME (one real request with the daemon's own
# client or protocol; exit 0 when the answer is right).  Sourced by
# compat.sh; bash, inside the guest.  Each smoke is run under a timeout by
# the caller; TOKEN is a fresh random word per call.

# tcp_dialog PORT LINE... : open 127.0.0.1:PORT, send each LINE (CRLF) after
# reading the server's greeting, print everything the server sent (1 s of
# quiet ends it).
tcp_dialog() {
	local port=$1; shift
	timeout 20 bash -c '
		port=$1; shift
		exec 3<>/dev/tcp/127.0.0.1/$port || exit 1
		IFS= read -r -t 10 greet <&3 || exit 1
		printf "%s\n" "$greet"
		for l; do
			printf "%s\r\n" "$l" >&3
			while IFS= read -r -t 1 a <&3; do printf "%s\n" "$a"; done
		done' _ "$port" "$@" 2>/dev/null | tr -d '\r'
}

# The compat user: a local account with a password, for the daemons whose
# smoke logs in (IMAP, FTP).
COMPAT_USER=mtagcompat
COMPAT_PASS=mtagcompat-pw1
compat_user() {
	id "$COMPAT_USER" >/dev/null 2>&1 && return 0
	useradd -m -s /bin/bash "$COMPAT_USER" && echo "$COMPAT_USER:$COMPAT_PASS" | chpasswd
}

# ------------------------------------------------------------ fast subset
smoke_redis() {
	[ "$(redis-cli -h 127.0.0.1 SET mtagcompat "$TOKEN")" = OK ] &&
		[ "$(redis-cli -h 127.0.0.1 GET mtagcompat)" = "$TOKEN" ]
}

# beanstalkd: put a job, reserve it, delete it (its text protocol).
smoke_beanstalkd() {
	local out
	out=$(timeout 20 bash -c '
		exec 3<>/dev/tcp/127.0.0.1/11300 || exit 1
		printf "put 0 0 60 %d\r\n%s\r\n" ${#1} "$1" >&3
		IFS= read -r -t 10 a <&3; echo "$a"
		printf "reserve-with-timeout 5\r\n" >&3
		IFS= read -r -t 10 r <&3; echo "$r"
		IFS= read -r -t 10 a <&3; echo "$a"
		r=${r#RESERVED }
		printf "delete %s\r\n" "${r%% *}" >&3
		IFS= read -r -t 10 a <&3; echo "$a"
		' _ "$TOKEN" 2>/dev/null | tr -d '\r')
	grep -q '^INSERTED [0-9]' <<<"$out" && grep -q '^RESERVED [0-9]' <<<"$out" &&
		grep -qx "$TOKEN" <<<"$out" && grep -qx DELETED <<<"$out"
}

# atd: a job queued with at(1) "now" runs and leaves its mark.
smoke_atd() {
	local f=/run/mtag-compat-at.$TOKEN
	echo "echo $TOKEN > $f" | at now >/dev/null 2>&1 || return 1
	wait_for 60 test -s "$f" && grep -qx "$TOKEN" "$f"
	local rc=$?; rm -f "$f"; return $rc
}

# tinyproxy (port 8888): an HTTP request for nginx's page through it.
smoke_tinyproxy() {
	timeout 20 bash -c 'exec 3<>/dev/tcp/127.0.0.1/8888 || exit 1
		printf "GET http://127.0.0.1/ HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n" >&3
		head -1 <&3' 2>/dev/null | grep -q '^HTTP/1\.[01] 200'
}

# rsync daemon: a module with one file, fetched with rsync(1).
setup_rsync() {
	mkdir -p /srv/mtag-compat
	echo "mtag compat rsync module" >/srv/mtag-compat/hello.txt
	cat >/etc/rsyncd.conf <<-'EOF'
	# mtag compat run: one read-only module
	address = 127.0.0.1
	[compat]
	path = /srv/mtag-compat
	read only = yes
	use chroot = yes
	EOF
}
smoke_rsync() {
	local d; d=$(mktemp -d)
	rsync -q rsync://127.0.0.1/compat/hello.txt "$d/" && cmp -s "$d/hello.txt" /srv/mtag-compat/hello.txt
	local rc=$?; rm -rf "$d"; return $rc
}

# ------------------------------------------------------------ full run
# Web servers: port 80 belongs to the image's nginx (the proxies' backend).
setup_apache2() {
	sed -i 's/^Listen 80$/Listen 8080/' /etc/apache2/ports.conf
	sed -i 's/<VirtualHost \*:80>/<VirtualHost *:8080>/' /etc/apache2/sites-available/000-default.conf
}
smoke_apache2() {
	[ "$(curl -s -o /dev/null -w '%{http_code}' http://127.0.0.1:8080/)" = 200 ]
}

setup_lighttpd() {
	sed -i 's/^server\.port[[:space:]]*=.*/server.port = 8081/' /etc/lighttpd/lighttpd.conf
	grep -q '^server.port = 8081' /etc/lighttpd/lighttpd.conf || echo 'server.port = 8081' >>/etc/lighttpd/lighttpd.conf
}
smoke_lighttpd() {
	[ "$(curl -s -o /dev/null -w '%{http_code}' http://127.0.0.1:8081/)" = 200 ]
}

# Databases: a table written and read back.
smoke_postgresql() {
	[ "$(runuser -u postgres -- psql -X -Atq -c "create temp table t(x int); insert into t select generate_series(1, 1000); select sum(x) || '$TOKEN' from t" 2>/dev/null)" = "500500$TOKEN" ]
}
# mariadb-server's postinst leaves no system tables when it runs in the
# image build's chroot (qemu-user): create them once, the way it would.
setup_mariadb() {
	[ -d /var/lib/mysql/mysql ] && return 0
	mariadb-install-db --user=mysql --datadir=/var/lib/mysql \
		--auth-root-authentication-method=socket --skip-test-db
}
smoke_mariadb() {
	[ "$(mysql -uroot -N -s -e "create database if not exists mtagcompat; create temporary table mtagcompat.t (x int, s varchar(32)); insert into mtagcompat.t values (1, '$TOKEN'), (2, 'b'); select concat(sum(x), group_concat(s order by x)) from mtagcompat.t" 2>/dev/null)" = "3$TOKEN,b" ]
}

# DNS: a name the server answers from its own data (no network here).
smoke_bind9() { [ "$(dig +short +time=5 +tries=2 @127.0.0.1 localhost A)" = 127.0.0.1 ]; }
smoke_unbound() { [ "$(dig +short +time=5 +tries=2 @127.0.0.1 localhost A)" = 127.0.0.1 ]; }
smoke_dnsmasq() { [ "$(dig +short +time=5 +tries=2 @127.0.0.1 mtag-guest A)" = 127.0.1.1 ]; }

# Mail: an SMTP dialogue delivering to a local mailbox; IMAP login.
setup_postfix() {
	if [ ! -s /etc/postfix/main.cf ]; then
		cp /usr/share/postfix/main.cf.debian /etc/postfix/main.cf
	fi
	postconf -e 'myhostname = mtag-guest' 'mydestination = mtag-guest, localhost' \
		'inet_interfaces = loopback-only' 'relayhost =' 'mailbox_size_limit = 0' 'inet_protocols = ipv4'
	touch /etc/aliases; newaliases 2>/dev/null
	compat_user
}
smoke_postfix() {
	local out
	out=$(tcp_dialog 25 "EHLO compat.example" "MAIL FROM:<root@localhost>" \
		"RCPT TO:<$COMPAT_USER@localhost>" DATA "Subject: $TOKEN" "" "mtag compat $TOKEN" . QUIT)
	grep -q '^220 ' <<<"$out" && grep -q '^250 .*queued as' <<<"$out" || return 1
	wait_for 60 grep -q "mtag compat $TOKEN" "/var/mail/$COMPAT_USER"
}

setup_dovecot() { compat_user; }
# imap_dialog LINE...: like tcp_dialog on port 143, but after each tagged
# command it reads until that command's tagged reply ("b OK ...", up to 20
# s): under sync on TCG, the login and the imap process it starts answer
# later than the 1 s of quiet tcp_dialog allows (dovecot logged every
# login and logout of the first run while the client had stopped reading).
imap_dialog() {
	timeout 60 bash -c '
		exec 3<>/dev/tcp/127.0.0.1/143 || exit 1
		IFS= read -r -t 20 greet <&3 || exit 1
		printf "%s\n" "$greet"
		for l; do
			printf "%s\r\n" "$l" >&3
			tag=${l%% *}
			while IFS= read -r -t 20 a <&3; do
				a=${a%$(printf "\r")}
				printf "%s\n" "$a"
				case "$a" in "$tag "*) break ;; esac
			done
		done' _ "$@" 2>/dev/null
}
smoke_dovecot() {
	local out
	out=$(imap_dialog "a CAPABILITY" "b LOGIN $COMPAT_USER $COMPAT_PASS" "c SELECT INBOX" "d LOGOUT")
	grep -q '^\* OK' <<<"$out" && grep -q '^a OK' <<<"$out" && grep -q '^b OK' <<<"$out" &&
		grep -q '^c OK' <<<"$out"
}

# Proxies: nginx's page through them.
setup_haproxy() {
	cat >>/etc/haproxy/haproxy.cfg <<-'EOF'

	# mtag compat run: a frontend in front of the image's nginx
	frontend mtagcompat
		bind 127.0.0.1:8082
		default_backend mtagcompat_nginx
	backend mtagcompat_nginx
		server nginx 127.0.0.1:80
	EOF
}
smoke_haproxy() { [ "$(curl -s -o /dev/null -w '%{http_code}' http://127.0.0.1:8082/)" = 200 ]; }
smoke_squid() { [ "$(curl -s -o /dev/null -w '%{http_code}' -x http://127.0.0.1:3128 http://127.0.0.1/)" = 200 ]; }

# Directory: slapd (Debian ships only /etc/init.d/slapd: systemd-sysv-generator
# makes slapd.service).  The root DSE names the database the package's
# postinst made; an anonymous search of its base entry reads it back, with
# TOKEN as an attribute asked for (an unknown one is ignored, not an error).
smoke_slapd() {
	local base
	base=$(ldapsearch -x -LLL -o ldif-wrap=no -H ldap://127.0.0.1/ -b "" -s base namingContexts 2>/dev/null |
		sed -n 's/^namingContexts: //p' | head -1)
	[ -n "$base" ] || return 1
	ldapsearch -x -LLL -o ldif-wrap=no -H ldap://127.0.0.1/ -b "$base" -s base "(objectClass=*)" dn "x$TOKEN" 2>/dev/null |
		grep -qxF "dn: $base"
}

# Message broker: a retained message published and read back.
smoke_mosquitto() {
	mosquitto_pub -h 127.0.0.1 -r -t mtagcompat/t -m "$TOKEN" &&
		[ "$(mosquitto_sub -h 127.0.0.1 -t mtagcompat/t -C 1 -W 10)" = "$TOKEN" ]
}

# Time: chronyc over chronyd's command socket.
smoke_chrony() { chronyc -n tracking 2>/dev/null | grep -q '^Reference ID'; }

# Logging: a message over syslog/TCP lands in a file.
setup_rsyslog() {
	# Disabling rsyslog in the image (build-image) also removed its alias
	# syslog.service, which syslog.socket (required by rsyslog.service)
	# activates: put the alias back, as "systemctl enable" made it.
	ln -sf /lib/systemd/system/rsyslog.service /etc/systemd/system/syslog.service
	systemctl daemon-reload
	cat >/etc/rsyslog.d/mtag-compat.conf <<-'EOF'
	# mtag compat run: syslog over TCP on the loopback, its messages in a file
	module(load="imtcp")
	input(type="imtcp" address="127.0.0.1" port="514")
	:syslogtag, startswith, "mtagcompat" /var/log/mtag-compat.log
	EOF
}
smoke_rsyslog() {
	logger -n 127.0.0.1 -P 514 -T -t mtagcompat "$TOKEN" 2>/dev/null || return 1
	wait_for 20 grep -q "$TOKEN" /var/log/mtag-compat.log
}

# Schedulers: cron runs a job at the next minute.
setup_cron() {
	echo '* * * * * root touch /run/mtag-compat-cron' >/etc/cron.d/mtag-compat
	chmod 644 /etc/cron.d/mtag-compat
}
smoke_cron() {
	# A run of the job after this start of cron (START_EPOCH: compat.sh).
	wait_for 75 bash -c '[ -e /run/mtag-compat-cron ] && [ "$(stat -c %Y /run/mtag-compat-cron)" -ge '"$START_EPOCH"' ]'
}

# FTP: log in as the compat user, PWD, QUIT.
setup_vsftpd() { compat_user; }
# code_dialog PORT LINE...: like tcp_dialog, but after the greeting and
# each LINE it reads until the final reply line ("NNN text", FTP and SMTP
# style; up to 20 s): a login under sync on TCG (PAM, the password hash)
# takes longer than tcp_dialog's 1 s of quiet.
code_dialog() {
	local port=$1; shift
	timeout 60 bash -c '
		port=$1; shift
		exec 3<>/dev/tcp/127.0.0.1/$port || exit 1
		final() { while IFS= read -r -t 20 a <&3; do a=${a%$(printf "\r")}; printf "%s\n" "$a"
			case "$a" in [0-9][0-9][0-9]" "*) return 0 ;; esac; done; return 1; }
		final || exit 1
		for l; do printf "%s\r\n" "$l" >&3; final || break; done' _ "$port" "$@" 2>/dev/null
}
smoke_vsftpd() {
	local out
	out=$(code_dialog 21 "USER $COMPAT_USER" "PASS $COMPAT_PASS" PWD QUIT)
	grep -q '^220' <<<"$out" && grep -q '^230' <<<"$out" && grep -q '^257' <<<"$out"
}

# SNMP: sysDescr.0 with snmpget.
smoke_snmpd() {
	snmpget -v2c -c public -Oqv -t 5 -r 1 127.0.0.1 1.3.6.1.2.1.1.1.0 2>/dev/null | grep -q Linux
}

# Prometheus node exporter: its metrics page.
smoke_node-exporter() {
	curl -s --max-time 15 http://127.0.0.1:9100/metrics | grep -q '^node_uname_info'
}

# IRC: register a nick, get the welcome (001).
setup_ngircd() {
	# Debian's ngircd checks IRC passwords with PAM; a test client has none.
	if grep -Eq '^[[:space:]]*;?[[:space:]]*PAM[[:space:]]*=' /etc/ngircd/ngircd.conf; then
		sed -Ei 's/^[[:space:]]*;?[[:space:]]*PAM[[:space:]]*=.*/\tPAM = no/' /etc/ngircd/ngircd.conf
	else
		sed -i 's/^\[Options\]$/[Options]\n\tPAM = no/' /etc/ngircd/ngircd.conf
	fi
}
smoke_ngircd() {
	local nick=c${TOKEN:0:8}
	tcp_dialog_irc() {
		timeout 20 bash -c 'exec 3<>/dev/tcp/127.0.0.1/6667 || exit 1
			printf "NICK %s\r\nUSER %s 0 * :mtag compat\r\n" "$1" "$1" >&3
			while IFS= read -r -t 10 a <&3; do printf "%s\n" "$a"; case "$a" in *" 001 "*) printf "QUIT\r\n" >&3; break ;; esac; done' _ "$1" 2>/dev/null
	}
	tcp_dialog_irc "$nick" | grep -q " 001 $nick "
}

# rpcbind: the portmapper's own registrations, with rpcinfo.
smoke_rpcbind() { rpcinfo -p 127.0.0.1 2>/dev/null | grep -q '100000 .* portmapper'; }
