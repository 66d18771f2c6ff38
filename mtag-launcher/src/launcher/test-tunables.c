/* test-tunables.c -- GLIBC_TUNABLES merging. */
#include <stdlib.h>

#include "tunables.h"
#include "unit.h"

static int merged_is(const char *old, unsigned v, const char *want)
{
	char *got = tunables_merge(old, v);
	int ok = strcmp(got, want) == 0;

	if (!ok)
		printf("# merge(\"%s\", %u) = \"%s\", want \"%s\"\n", old ? old : "(null)", v, got, want);
	free(got);
	return ok;
}

static void test_merge(void)
{
	CHECK(merged_is(NULL, 3, "glibc.mem.tagging=3:glibc.memtag.enable=3"));
	CHECK(merged_is("", 0, "glibc.mem.tagging=0:glibc.memtag.enable=0"));
	CHECK(merged_is("glibc.malloc.check=3", 1,
			"glibc.malloc.check=3:glibc.mem.tagging=1:glibc.memtag.enable=1"));
	/* Earlier memtag entries (either name, anywhere) are replaced. */
	CHECK(merged_is("glibc.mem.tagging=1:glibc.malloc.mmap_threshold=4096:glibc.memtag.enable=7", 5,
			"glibc.malloc.mmap_threshold=4096:glibc.mem.tagging=5:glibc.memtag.enable=5"));
	/* Empty pairs dropped; similar names kept. */
	CHECK(merged_is("::glibc.mem.taggingx=1::glibc.memtag.enabled=2:", 3,
			"glibc.mem.taggingx=1:glibc.memtag.enabled=2:glibc.mem.tagging=3:glibc.memtag.enable=3"));
	CHECK(merged_is("glibc.mem.tagging", 3, "glibc.mem.tagging=3:glibc.memtag.enable=3"));
	CHECK(merged_is("a=b=c:glibc.rtld.nns=8", 2,
			"a=b=c:glibc.rtld.nns=8:glibc.mem.tagging=2:glibc.memtag.enable=2"));
}

static void test_apply(void)
{
	setenv("GLIBC_TUNABLES", "glibc.malloc.check=1:glibc.mem.tagging=3", 1);
	setenv("_MTAG_ENABLE", "3", 1);
	CHECK(tunables_apply(0) == 0);
	CHECK_STR(getenv("GLIBC_TUNABLES"), "glibc.malloc.check=1:glibc.mem.tagging=0:glibc.memtag.enable=0");
	CHECK_STR(getenv("_MTAG_ENABLE"), "0");
	unsetenv("GLIBC_TUNABLES");
	unsetenv("_MTAG_ENABLE");
}

static int heap_off_is(const char *old, const char *want)
{
	char *got = malloc_conf_heap_off(old);
	int ok = strcmp(got, want) == 0;

	if (!ok)
		printf("# malloc_conf_heap_off(\"%s\") = \"%s\", want \"%s\"\n", old ? old : "(null)", got, want);
	free(got);
	return ok;
}

/* heap=off reaches jemalloc: ",mtag:false" after what the admin set. */
static void test_malloc_conf(void)
{
	static const char *const cases[][2] = {
		{ NULL, "mtag:false" },
		{ "", "mtag:false" },
		{ "narenas:2,dirty_decay_ms:0", "narenas:2,dirty_decay_ms:0,mtag:false" },
		{ "narenas:2,", "narenas:2,mtag:false" },
		/* The last one wins in jemalloc: an earlier mtag:true loses. */
		{ "mtag:true,narenas:2", "mtag:true,narenas:2,mtag:false" },
		/* Already off (a launcher under a launcher): not repeated. */
		{ "narenas:2,mtag:false", "narenas:2,mtag:false" },
		{ "mtag:false,mtag:true", "mtag:false,mtag:true,mtag:false" },
		{ "xmtag:false", "xmtag:false,mtag:false" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		CHECK(heap_off_is(cases[i][0], cases[i][1]));

	setenv("MALLOC_CONF", "narenas:4", 1);
	CHECK(malloc_conf_apply(true) == 0);
	CHECK_STR(getenv("MALLOC_CONF"), "narenas:4");
	CHECK(malloc_conf_apply(false) == 0);
	CHECK_STR(getenv("MALLOC_CONF"), "narenas:4,mtag:false");
	unsetenv("MALLOC_CONF");
	CHECK(malloc_conf_apply(true) == 0);
	CHECK(getenv("MALLOC_CONF") == NULL);
	CHECK(malloc_conf_apply(false) == 0);
	CHECK_STR(getenv("MALLOC_CONF"), "mtag:false");
	unsetenv("MALLOC_CONF");
}

void run_tunables_tests(void)
{
	RUN(test_merge);
	RUN(test_apply);
	RUN(test_malloc_conf);
}
