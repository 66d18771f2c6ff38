/* test-bugid.c -- a fault's bug identity (bugid.h): SHA-256 against the
 * FIPS 180-4 vectors, the signature's inputs, the pc's object from a
 * recorded /proc (the process there, gone, exec'd, JIT code, a file
 * replaced), its build-id and the dpkg package that owns it; the rows of
 * "mtagctl bugs" (mtagctl-bugs.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bugid.h"
#include "mtagctl-bugs.h"
#include "sha256.h"
#include "unit.h"

static void test_sha256_vectors(void)
{
	char hex[65], *big;
	struct sha256 s;
	uint8_t d[32];

	sha256_hex("", 0, hex);
	CHECK_STR(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	sha256_hex("abc", 3, hex);
	CHECK_STR(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", 56, hex);
	CHECK_STR(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
	/* A million 'a', fed in uneven pieces (block boundaries). */
	big = malloc(1000000);
	CHECK(big);
	memset(big, 'a', 1000000);
	sha256_init(&s);
	for (size_t off = 0, k = 1; off < 1000000; off += k, k = k * 7 % 1000 + 1)
		sha256_update(&s, big + off, off + k > 1000000 ? 1000000 - off : k);
	sha256_final(&s, d);
	free(big);
	for (int i = 0; i < 32; i++)
		snprintf(hex + 2 * i, 3, "%02x", d[i]);
	CHECK_STR(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

static void test_signature(void)
{
	char a[BUG_SIGNATURE_LEN + 1], b[BUG_SIGNATURE_LEN + 1], hex[65];
	const char *bid = "c89156ebdabf859f4ee70cb0c303004dccf1ae51";
	static const char in[] = "mtag-bug-v1\0c89156ebdabf859f4ee70cb0c303004dccf1ae51\0overflow\0ba1c0";

	/* The definition of bugid.h, byte for byte. */
	CHECK(bug_signature(bid, NULL, NULL, NULL, "overflow", 0xba1c0, a));
	sha256_hex(in, sizeof(in) - 1, hex);
	CHECK(strlen(a) == BUG_SIGNATURE_LEN && strncmp(a, hex, BUG_SIGNATURE_LEN) == 0);
	/* Neither the package nor the path counts when there is a build-id:
	 * one build installed anywhere is one object. */
	CHECK(bug_signature(bid, "nginx-core", "1.22.1-9", "/usr/sbin/nginx", "overflow", 0xba1c0, b));
	CHECK_STR(a, b);
	CHECK(bug_signature(bid, NULL, NULL, "/srv/chroot/usr/sbin/nginx", "overflow", 0xba1c0, b));
	CHECK_STR(a, b);
	/* Another offset, build or cause is another bug. */
	CHECK(bug_signature(bid, NULL, NULL, NULL, "overflow", 0xba1c4, b) && strcmp(a, b) != 0);
	CHECK(bug_signature("c89156ebdabf859f4ee70cb0c303004dccf1ae52", NULL, NULL, NULL, "overflow", 0xba1c0, b) &&
	      strcmp(a, b) != 0);
	CHECK(bug_signature(bid, NULL, NULL, NULL, "underflow", 0xba1c0, b) && strcmp(a, b) != 0);
	CHECK(bug_signature(bid, NULL, NULL, NULL, "unknown", 0xba1c0, b) && strcmp(a, b) != 0);
	/* use-after-free and wild-pointer are one class (malloc reuse). */
	CHECK(bug_signature(bid, NULL, NULL, NULL, "use-after-free", 0x10, a));
	CHECK(bug_signature(bid, NULL, NULL, NULL, "wild-pointer", 0x10, b));
	CHECK_STR(a, b);
	CHECK_STR(bug_cause_class("certainly-not-a-cause"), "unknown");
	CHECK_STR(bug_cause_class(NULL), "unknown");
	/* No build-id: the package's build stands in; nothing: no signature. */
	CHECK(bug_signature("", "nginx-core", "1.22.1-9", "/usr/sbin/nginx", "overflow", 0x10, a));
	CHECK(bug_signature("", "nginx-core", "1.22.1-10", "/usr/sbin/nginx", "overflow", 0x10, b) &&
	      strcmp(a, b) != 0);
	CHECK(!bug_signature("", "", "", "/usr/sbin/nginx", "overflow", 0x10, a) && a[0] == '\0');
	CHECK(!bug_signature(NULL, NULL, NULL, NULL, "overflow", 0x10, a));
}

static void test_async_signature(void)
{
	char a[BUG_SIGNATURE_LEN + 1], b[BUG_SIGNATURE_LEN + 1], hex[65];
	const char *bid = "c89156ebdabf859f4ee70cb0c303004dccf1ae51";
	static const char in[] = "mtag-bug-v1\0c89156ebdabf859f4ee70cb0c303004dccf1ae51\0async\0";

	/* bugid.h's definition, byte for byte: no offset. */
	CHECK(bug_async_signature(bid, NULL, NULL, NULL, a));
	sha256_hex(in, sizeof(in) - 1, hex);
	CHECK(strncmp(a, hex, BUG_SIGNATURE_LEN) == 0 && strlen(a) == BUG_SIGNATURE_LEN);
	/* Never a sync fault's of the same object, whatever its offset or
	 * cause. */
	CHECK(bug_signature(bid, NULL, NULL, NULL, "unknown", 0, b) && strcmp(a, b) != 0);
	CHECK(bug_signature(bid, NULL, NULL, NULL, "async", 0, b) && strcmp(a, b) != 0);
	/* The package's build without a build-id; nothing: none. */
	CHECK(bug_async_signature("", "nginx-core", "1.22.1-9", "/usr/sbin/nginx", a));
	CHECK(bug_async_signature("", "nginx-core", "1.22.1-10", "/usr/sbin/nginx", b) && strcmp(a, b) != 0);
	CHECK(!bug_async_signature("", "", "", "/usr/sbin/nginx", a) && !a[0]);
}

/* A recorded /proc with process PID mapping OBJ (inode INO) at
 * 0x400000-0x480000, file offset 0x10000, with PERMS; a root link to /. */
static const char *fake_proc(pid_t pid, const char *obj, uint64_t ino, const char *perms)
{
	static char proc[600];
	char path[900], text[1400];

	snprintf(proc, sizeof(proc), "%s/bugid-proc", tmpdir());
	snprintf(path, sizeof(path), "%s/%d", proc, (int)pid);
	mkdirs(path);
	snprintf(path, sizeof(path), "%s/%d/maps", proc, (int)pid);
	snprintf(text, sizeof(text),
		 "00300000-00301000 rw-p 00000000 00:00 0\n"
		 "00400000-00480000 %s 00010000 fe:01 %" PRIu64 "   %s\n"
		 "00500000-00501000 r-xp 00000000 00:00 0\n", perms, ino, obj);
	write_file(path, text);
	snprintf(path, sizeof(path), "%s/%d/root", proc, (int)pid);
	unlink(path);
	if (symlink("/", path) < 0)
		return NULL;
	return proc;
}

static void test_object_of_pc(void)
{
	char obj[600], dpkg[600], path[900], text[1400];
	static struct bug_object bo;
	struct bug_object *o = &bo;
	const char *proc, *why = NULL;
	struct stat st;


	/* The object: this test program (an ELF with a build-id: Debian's
	 * gcc and clang link with --build-id). */
	snprintf(obj, sizeof(obj), "%s/bugid-obj", tmpdir());
	snprintf(text, sizeof(text), "cp /proc/%d/exe '%s'", (int)getpid(), obj);
	CHECK(system(text) == 0 && stat(obj, &st) == 0);
	snprintf(dpkg, sizeof(dpkg), "%s/bugid-dpkg", tmpdir());
	snprintf(path, sizeof(path), "%s/info", dpkg);
	mkdirs(path);
	snprintf(path, sizeof(path), "%s/info/app:arm64.list", dpkg);
	snprintf(text, sizeof(text), "/.\n/usr\n%s\n", obj);
	write_file(path, text);
	snprintf(path, sizeof(path), "%s/status", dpkg);
	write_file(path, "Package: app\nStatus: install ok installed\nArchitecture: amd64\nVersion: 0.9\n\n"
			 "Package: app\nStatus: install ok installed\nArchitecture: arm64\nVersion: 1.2-3\n\n");
	bug_set_dpkg_admindir(dpkg);

	proc = fake_proc(150, obj, (uint64_t)st.st_ino, "r-xp");
	CHECK(proc);
	CHECK(bug_object_of_pc(proc, 150, 0x0500000000412340ULL, o, &why) == 1);
	CHECK_STR(o->path, obj);
	CHECK(o->offset == 0x22340);   /* 0x412340 - 0x400000 + 0x10000 */
	CHECK(strlen(o->build_id) >= 16 && strspn(o->build_id, "0123456789abcdef") == strlen(o->build_id));
	CHECK_STR(o->package, "app:arm64");
	CHECK_STR(o->version, "1.2-3");
	CHECK_STR(o->note, "");
	/* The process is gone. */
	why = NULL;
	CHECK(bug_object_of_pc(proc, 151, 0x412340, o, &why) == 0 && why && strstr(why, "gone"));
	/* The pc is not mapped any more (an exec, an munmap). */
	CHECK(bug_object_of_pc(proc, 150, 0x600000, o, &why) == 0 && strstr(why, "no mapping"));
	/* JIT code: memory without a file. */
	CHECK(bug_object_of_pc(proc, 150, 0x500010, o, &why) == 0 && strstr(why, "without a file"));
	/* Not executable: a pc cannot be there. */
	proc = fake_proc(152, obj, (uint64_t)st.st_ino, "r--p");
	CHECK(bug_object_of_pc(proc, 152, 0x412340, o, &why) == 0 && strstr(why, "execute"));
	/* The path names another file now (replaced since mapped): no
	 * build-id, no package, but the offset stays (and no signature
	 * without them). */
	proc = fake_proc(153, obj, (uint64_t)st.st_ino + 1, "r-xp");
	CHECK(bug_object_of_pc(proc, 153, 0x412340, o, &why) == 1);
	CHECK(o->offset == 0x22340 && !o->build_id[0] && !o->package[0]);
	CHECK(strstr(o->note, "build-id: the object's path names another file now") != NULL);
	CHECK(strstr(o->note, "package: this host's file of that name is another one") != NULL);
	/* The path is a symbolic link now (to the same file even): not
	 * followed, maps names files by their real path. */
	snprintf(path, sizeof(path), "%s/bugid-link", tmpdir());
	unlink(path);
	CHECK(symlink(obj, path) == 0);
	proc = fake_proc(155, path, (uint64_t)st.st_ino, "r-xp");
	CHECK(bug_object_of_pc(proc, 155, 0x412340, o, &why) == 1);
	CHECK(!o->build_id[0] && strstr(o->note, "symbolic link") != NULL);
	/* A FIFO (or a device) in its place is never opened: no hang. */
	snprintf(path, sizeof(path), "%s/bugid-fifo", tmpdir());
	unlink(path);
	CHECK(mkfifo(path, 0600) == 0);
	proc = fake_proc(156, path, (uint64_t)st.st_ino, "r-xp");
	CHECK(bug_object_of_pc(proc, 156, 0x412340, o, &why) == 1);
	CHECK(!o->build_id[0] && strstr(o->note, "another file now") != NULL);
	/* A deleted object (upgraded under the running process). */
	snprintf(path, sizeof(path), "%s (deleted)", obj);
	proc = fake_proc(154, path, (uint64_t)st.st_ino, "r-xp");
	CHECK(bug_object_of_pc(proc, 154, 0x412340, o, &why) == 1);
	CHECK(strstr(o->note, "deleted") != NULL && !o->package[0]);

	/* The main executable (an async fault): PID/exe's file, found in
	 * the maps by its inode. */
	proc = fake_proc(157, obj, (uint64_t)st.st_ino, "r-xp");
	snprintf(path, sizeof(path), "%s/157/exe", proc);
	unlink(path);
	CHECK(symlink(obj, path) == 0);
	why = NULL;
	CHECK(bug_object_of_exe(proc, 157, o, &why) == 1);
	CHECK_STR(o->path, obj);
	CHECK(strlen(o->build_id) >= 16 && strcmp(o->package, "app:arm64") == 0);
	/* Mapped without execute permission: not its text. */
	proc = fake_proc(157, obj, (uint64_t)st.st_ino, "r--p");
	CHECK(bug_object_of_exe(proc, 157, o, &why) == 0 && strstr(why, "no executable mapping"));
	/* Another file than the one mapped (it exec'd), or none. */
	proc = fake_proc(157, obj, (uint64_t)st.st_ino + 1, "r-xp");
	CHECK(bug_object_of_exe(proc, 157, o, &why) == 0 && strstr(why, "no executable mapping"));
	unlink(path);
	CHECK(bug_object_of_exe(proc, 157, o, &why) == 0 && strstr(why, "gone"));
	bug_set_dpkg_admindir(NULL);

}

static void test_dpkg_owner(void)
{
	char dpkg[600], path[900], pkg[256], ver[128];
	const char *why = NULL;
	struct stat st;

	if (stat("/usr/bin/true", &st) < 0)
		SKIP_TEST("no /usr/bin/true");
	snprintf(dpkg, sizeof(dpkg), "%s/bugid-dpkg2", tmpdir());
	snprintf(path, sizeof(path), "%s/info", dpkg);
	mkdirs(path);
	/* Merged /usr: dpkg lists /bin/true, the maps say /usr/bin/true. */
	snprintf(path, sizeof(path), "%s/info/coreutils.list", dpkg);
	write_file(path, "/.\n/bin\n/bin/true\n");
	snprintf(path, sizeof(path), "%s/status", dpkg);
	write_file(path, "Package: coreutils\nStatus: install ok installed\nArchitecture: arm64\nVersion: 9.1-1\n\n");
	CHECK(bug_dpkg_owner(dpkg, "/usr/bin/true", (uint64_t)st.st_ino, pkg, sizeof(pkg), ver, sizeof(ver), &why) == 1);
	CHECK_STR(pkg, "coreutils");
	CHECK_STR(ver, "9.1-1");
	/* Another inode: a container's /usr/bin/true is not this package's. */
	CHECK(bug_dpkg_owner(dpkg, "/usr/bin/true", (uint64_t)st.st_ino + 1, pkg, sizeof(pkg), ver, sizeof(ver), &why) == 0);
	CHECK(strstr(why, "another one") != NULL && !pkg[0]);
	/* Removed but its list left (status not installed): no package. */
	write_file(path, "Package: coreutils\nStatus: deinstall ok config-files\nArchitecture: arm64\nVersion: 9.1-1\n\n");
	CHECK(bug_dpkg_owner(dpkg, "/usr/bin/true", (uint64_t)st.st_ino, pkg, sizeof(pkg), ver, sizeof(ver), &why) == 0);
	CHECK(!pkg[0] && strstr(why, "not installed"));
	/* No database at all. */
	snprintf(path, sizeof(path), "%s/none", dpkg);
	CHECK(bug_dpkg_owner(path, "/usr/bin/true", (uint64_t)st.st_ino, pkg, sizeof(pkg), ver, sizeof(ver), &why) == 0);
	CHECK_STR(why, "no dpkg database");
}

static void test_bug_rows(void)
{
	struct bug_set set = { 0 };
	struct bug_row *rows;
	char sig[32], mid[40];
	struct bug_fault f = {
		.signature = "1111111111111111", .cause = "overflow", .object = "/usr/sbin/nginx",
		.offset = "0xba1c0", .build_id = "ab", .package = "nginx-core", .version = "1.22.1-9",
		.machine_id = "a1", .hostname = "host-a", .unit = "nginx.service", .usec = 100,
	};

	bug_set_add(&set, &f);
	f.usec = 50;
	bug_set_add(&set, &f);                             /* same host again */
	f.signature = "2222222222222222";
	f.cause = "wild-pointer";
	for (int i = 0; i < 4; i++)                        /* more faults, one host */
		bug_set_add(&set, &f);
	f.signature = "1111111111111111";
	f.cause = "overflow";
	f.machine_id = "b1";
	f.hostname = "host-b";
	f.unit = "nginx-debug.service";
	f.usec = 300;
	bug_set_add(&set, &f);
	/* A fleet: 500 hosts, 300 other bugs, each on some of them. */
	for (int h = 0; h < 500; h++)
		for (int b = 0; b < 300; b += 1 + h % 7) {
			snprintf(sig, sizeof(sig), "%016x", 0x10000 + b);
			snprintf(mid, sizeof(mid), "m%d", h);
			f.signature = sig;
			f.machine_id = mid;
			f.hostname = mid;
			bug_set_add(&set, &f);
		}
	/* An async fault: its row is coarse, its class "async" whatever
	 * MTAG_CAUSE says. */
	f.signature = "3333333333333333";
	f.cause = "unknown";
	f.coarse = true;
	bug_set_add(&set, &f);
	/* Stack signatures: each once, only under a row there is. */
	bug_set_add_stack(&set, "1111111111111111", "aaaaaaaaaaaaaaaa");
	bug_set_add_stack(&set, "1111111111111111", "bbbbbbbbbbbbbbbb");
	bug_set_add_stack(&set, "1111111111111111", "aaaaaaaaaaaaaaaa");
	bug_set_add_stack(&set, "9999999999999999", "cccccccccccccccc");
	bug_set_add_stack(&set, "2222222222222222", "");
	bug_set_sort(&set);
	rows = set.rows;
	CHECK(set.n == 303);
	/* Most hosts first: the fleet's bug 0 is on every host. */
	CHECK_STR(rows[0].signature, "0000000000010000");
	CHECK(rows[0].n_hosts == 500 && rows[0].count == 500);
	for (size_t i = 0; i < set.n; i++) {
		if (strcmp(rows[i].signature, "1111111111111111") == 0) {
			/* Two hosts, though the other has more faults. */
			CHECK(rows[i].n_hosts == 2 && rows[i].count == 3);
			CHECK(rows[i].first_usec == 50 && rows[i].last_usec == 300);
			CHECK(rows[i].n_units == 2);
			CHECK_STR(rows[i].units[0], "nginx-debug.service");
			CHECK_STR(rows[i].hosts[1].hostname, "host-b");
			CHECK(rows[i].n_stacks == 2 && strcmp(rows[i].stacks[1], "bbbbbbbbbbbbbbbb") == 0);
			CHECK(i + 1 < set.n && strcmp(rows[i + 1].signature, "2222222222222222") == 0);
			CHECK_STR(rows[i + 1].cause, "use-after-free");
			CHECK(rows[i + 1].n_hosts == 1 && rows[i + 1].count == 4);
		}
		CHECK(rows[i].coarse == (strcmp(rows[i].signature, "3333333333333333") == 0));
		CHECK(rows[i].n_stacks == 0 || strcmp(rows[i].signature, "1111111111111111") == 0);
		if (rows[i].coarse)
			CHECK_STR(rows[i].cause, "async");
		CHECK(i == 0 || rows[i - 1].n_hosts >= rows[i].n_hosts);
	}
	bug_set_free(&set);
}

void run_bugid_tests(void)
{
	RUN(test_sha256_vectors);
	RUN(test_signature);
	RUN(test_async_signature);
	RUN(test_object_of_pc);
	RUN(test_dpkg_owner);
	RUN(test_bug_rows);
}
