/* trigger-test -- host-side check of libmtaginject.so (run under qemu-user).
 *
 *   trigger-test [-b] TEXT
 * writes TEXT into one end of a socketpair (one byte per write with -b)
 * and reads it from the other with read(2), as a server would read a
 * request, then prints "trigger-test: survived" and exits 0.  With the
 * library preloaded and TEXT holding MTAGBUG-<bug>, the bug happens inside
 * that read.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int sv[2], bytewise = 0;
	const char *text;
	char buf[256];

	if (argc > 1 && strcmp(argv[1], "-b") == 0) {
		bytewise = 1;
		argc--, argv++;
	}
	if (argc != 2) {
		fprintf(stderr, "usage: trigger-test [-b] TEXT\n");
		return 2;
	}
	text = argv[1];
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv))
		return 2;
	if (write(sv[0], text, strlen(text)) != (ssize_t)strlen(text))
		return 2;
	shutdown(sv[0], SHUT_WR);
	setvbuf(stdout, NULL, _IONBF, 0);
	for (;;) {
		ssize_t n = read(sv[1], buf, bytewise ? 1 : sizeof(buf));

		if (n <= 0)
			break;
	}
	printf("trigger-test: survived\n");
	return 0;
}
