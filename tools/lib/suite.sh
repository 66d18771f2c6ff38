# shellcheck shell=sh
# tools/lib/suite.sh -- the Debian suites mtag builds for, and where one
# suite's products go.  Sourced (POSIX sh) by tools/lib/build.sh, by
# tests/functions.sh and by the scripts that stand alone; TOP must be set.
#
#   SUITE       the suite a command builds or tests (default below);
#   BUILD_ROOT  the directory of every suite's products (default build/);
#   BUILD       this suite's products: $BUILD_ROOT/$SUITE unless set
#               (the kernel in BUILD/kernel/, the .debs in BUILD/debs/,
#               the image in BUILD/image/, whatever the suite).
#
# The Makefile sets and exports the same three, so a script run by make and
# one run by hand agree.

# Every suite mtag supports, oldest first, and the default: Debian's stable
# release.
MTAG_SUITES="bookworm trixie"
MTAG_DEFAULT_SUITE=bookworm
# The suite built on the host itself (the project's machines are Debian 12);
# every other suite is built in its own chroot (tools/build-chroot), and its
# mtag-launcher carries +debNN (tools/build-launcher-debs).
# shellcheck disable=SC2034 # read by the scripts that source this file
MTAG_HOST_SUITE=bookworm

# mtag_check_suite NAME -- fail with a message naming the known suites when
# NAME is not one of them.
mtag_check_suite() {
	case " $MTAG_SUITES " in
	*" $1 "*) return 0 ;;
	esac
	echo "unknown SUITE '$1' (one of: $MTAG_SUITES)" >&2
	return 2
}

SUITE=${SUITE:-$MTAG_DEFAULT_SUITE}
mtag_check_suite "$SUITE" || exit 2
BUILD_ROOT=${BUILD_ROOT:-$TOP/build}
BUILD=${BUILD:-$BUILD_ROOT/$SUITE}
export SUITE BUILD_ROOT BUILD
