# shellcheck shell=sh
# tools/lib/debian-archive.sh -- where Debian's archive is, as this
# machine's apt sources name it.  POSIX sh: tools/install-deps (sh) and
# tools/lib/build.sh (bash) both source it.
#
# An admin may reach Debian through a local mirror or a caching proxy, so
# the sources mtag writes (bookworm-backports and deb-src on the host, the
# image's own sources) take the archive's URI from the host's apt
# configuration, never from a host name written into the tree.  apt itself
# reads the configuration (sources.list, sources.list.d/*.list and
# *.sources, one-line or deb822), with apt-get indextargets; no network.

# debian_archive_uri main|security [CODENAME] -- the URI, without a
# trailing slash, of the "deb" source whose suite is CODENAME (default: the
# host's, from /etc/os-release) for main, or CODENAME-security for
# security.  When no source for CODENAME is configured (a bookworm host
# asked for trixie), the host's own main URI: one archive serves every
# suite, and a mirror or proxy of it does too.  When no security source
# is configured, the main URI with "debian" at its end made
# "debian-security" (the archive's own layout, which mirrors and proxies
# keep).  Prints nothing and returns 1 when there is none.
debian_archive_uri() {
	_dau_which=$1
	_dau_codename=${2:-$(. /etc/os-release && echo "${VERSION_CODENAME:-}")}
	case $_dau_which in
	main) _dau_suite=$_dau_codename ;;
	security) _dau_suite=$_dau_codename-security ;;
	*) return 2 ;;
	esac
	# shellcheck disable=SC2016 # apt's own $(FIELD) syntax
	_dau_uri=$(apt-get indextargets --no-release-info --format '$(TARGET_OF) $(REPO_URI) $(RELEASE)' 2>/dev/null |
		awk -v s="$_dau_suite" '$1 == "deb" && $3 == s { sub(/\/+$/, "", $2); print $2; exit }')
	_dau_host=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
	if [ -z "$_dau_uri" ] && [ "$_dau_which" = main ] && [ "$_dau_codename" != "$_dau_host" ]; then
		_dau_uri=$(debian_archive_uri main "$_dau_host") || return 1
	fi
	if [ -z "$_dau_uri" ] && [ "$_dau_which" = security ]; then
		_dau_uri=$(debian_archive_uri main "$_dau_codename") || return 1
		case $_dau_uri in
		*/debian) _dau_uri=$_dau_uri-security ;;
		*) _dau_uri= ;;
		esac
	fi
	[ -n "$_dau_uri" ] || return 1
	printf '%s\n' "$_dau_uri"
}
