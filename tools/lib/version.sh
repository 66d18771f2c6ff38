# shellcheck shell=sh
# tools/lib/version.sh -- the version of every package mtag builds from a
# Debian source package (glibc, jemalloc, linux), in one place.  POSIX sh:
# the bash build scripts and the sh tools both source it; tools/mtag-version
# is its command-line face (make, tests).
#
# The rules (issue 36), for a Debian version BASE of suite SUITE (deb12 for
# bookworm, deb13 for trixie):
#   - mtag's build sorts above BASE: dpkg prefers it to Debian's build of
#     the same version;
#   - and below Debian's next update of BASE in that suite: a stable
#     update (point release or security) of BASE carries +debNNuM (M+1
#     when BASE has +debNNuM, else 1) and always wins, so mtag never hides
#     a Debian fix;
#   - and above BASE+bK, a binNMU of BASE (the same source rebuilt): the
#     binNMU has no fix mtag's build lacks, so it must not take the
#     protection away.
# Hence:
#   BASE ends in [+~]debNNuM (NN the suite's):  BASE+mtagN
#        2.36-9+deb12u14  ->  2.36-9+deb12u14+mtag1
#        (< 2.36-9+deb12u15; > 2.36-9+deb12u14+b1 as "+b" < "+m")
#   otherwise:                                  BASE+debNNu0+mtagN
#        5.3.0-1  ->  5.3.0-1+deb12u0+mtag1
#        (< 5.3.0-1+deb12u1 as u0 < u1; > 5.3.0-1+b1 as "+d" > "+b")
#   The suite's own NN is in the version: a BASE that two suites share
#   (jemalloc 5.3.0-1 in both, or 1.0-1+deb12u3 carried into trixie) gets
#   two versions, so one pool holds both builds, and each stays below the
#   suite's next update (1.0-1+deb12u3+deb13u0+mtag1 < 1.0-1+deb13u1).
#
# N, mtag's revision of its patches on one BASE, is 1 for each new BASE
# and is raised by hand when mtag's patches change while BASE does not
# (MTAG_REVISION in the build script).  The order of mtag's builds is thus
# Debian's order of its bases, then N; no hash takes part.  Forgetting to
# raise N cannot go out unnoticed: reprepro refuses a second, different
# package with a version it already holds (make repo fails).

# mtag_suite_nn SUITE -- the release number of a Debian suite (codename).
mtag_suite_nn() {
	case $1 in
	bullseye) echo 11 ;;
	bookworm) echo 12 ;;
	trixie) echo 13 ;;
	forky) echo 14 ;;
	*) echo "mtag_suite_nn: unknown Debian suite '$1' (bullseye, bookworm, trixie or forky)" >&2
	   return 1 ;;
	esac
}

# mtag_valid_base BASE -- whether BASE is a Debian version with a revision
# and no mtag part (so that a base cannot be one of mtag's own versions).
mtag_valid_base() {
	case $1 in
	*mtag*) return 1 ;;
	*-*) ;;
	*) return 1 ;;
	esac
	dpkg --validate-version "$1" >/dev/null 2>&1
}

# mtag_local_version SUITE BASE [N] -- mtag's version of its build of BASE
# for SUITE (N: mtag's revision, default 1).
mtag_local_version() {
	_mlv_nn=$(mtag_suite_nn "$1") || return 1
	mtag_valid_base "$2" || {
		echo "mtag_local_version: '$2' is not a Debian version with a revision" >&2
		return 1
	}
	_mlv_n=${3:-1}
	case $_mlv_n in
	'' | *[!0-9]* | 0*) echo "mtag_local_version: revision '$_mlv_n' is not a positive number" >&2
	   return 1 ;;
	esac
	if printf '%s\n' "$2" | grep -Eq "[+~]deb${_mlv_nn}u[0-9]+\$"; then
		printf '%s+mtag%s\n' "$2" "$_mlv_n"
	else
		printf '%s+deb%su0+mtag%s\n' "$2" "$_mlv_nn" "$_mlv_n"
	fi
}

# mtag_local_suffix SUITE BASE [N] -- what mtag_local_version appends to
# BASE (the build scripts' LOCAL_VERSION: dch -v BASE$LOCAL_VERSION).
mtag_local_suffix() {
	_mls_v=$(mtag_local_version "$@") || return 1
	printf '%s\n' "${_mls_v#"$2"}"
}

# mtag_next_update SUITE BASE -- the version Debian's next stable update
# (point release or security) of BASE in SUITE carries.
mtag_next_update() {
	_mnu_nn=$(mtag_suite_nn "$1") || return 1
	_mnu_m=$(printf '%s\n' "$2" | sed -En "s/.*[+~]deb${_mnu_nn}u([0-9]+)\$/\\1/p")
	if [ -n "$_mnu_m" ]; then
		printf '%s%s\n' "${2%"$_mnu_m"}" "$((_mnu_m + 1))"
	else
		printf '%s+deb%su1\n' "$2" "$_mnu_nn"
	fi
}

# mtag_base_of SUITE VERSION -- the Debian version that mtag's VERSION (as
# made by mtag_local_version for SUITE) was built on.
mtag_base_of() {
	_mbo_nn=$(mtag_suite_nn "$1") || return 1
	case $2 in
	*+mtag[1-9]*) ;;
	*) echo "mtag_base_of: '$2' is not one of mtag's versions" >&2; return 1 ;;
	esac
	_mbo_b=${2%+mtag*}
	printf '%s\n' "${_mbo_b%+deb"$_mbo_nn"u0}"
}
