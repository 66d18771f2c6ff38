# mtag's apt repository (issue 36, docs/repository.md).
#   make repo                 the metapackage mtag of each suite in
#                             REPO_SUITES, then build/repo/: signed, one
#                             distribution per suite, ready to serve
#   make follow-debian SUITE=bookworm
#                             rebuild what Debian updated, test, publish
# REPO_URL (written into the .sources files), MTAG_REPO_GNUPGHOME (the
# signing key, default /var/lib/mtag-build/repo-key): see tools/build-repo.

REPO_SUITES ?= bookworm
CHECK_SUITES += repo

.PHONY: repo follow-debian
repo:
	@for s in $(REPO_SUITES); do SUITE=$$s tools/build-metapackage || exit 1; done
	@tools/build-repo

follow-debian:
	@SUITE=$(or $(SUITE),bookworm) tools/follow-debian
