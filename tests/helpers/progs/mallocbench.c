/* mallocbench -- N pairs of malloc(SIZE) and free, for counting the
 * instructions a pair costs (the glibc suite runs it under qemu-aarch64
 * with one instruction per translation block and counts the blocks
 * executed, for two values of N: the difference is N pairs, without the
 * start-up and exit).
 *
 *   mallocbench N SIZE
 */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	long n, i;
	size_t size;

	if (argc != 3 || (n = strtol(argv[1], NULL, 0)) < 0 ||
	    (size = strtoul(argv[2], NULL, 0)) == 0) {
		fprintf(stderr, "usage: mallocbench N SIZE\n");
		return 2;
	}
	for (i = 0; i < n; i++) {
		void *volatile p = malloc(size);

		if (!p)
			return 1;
		free(p);
	}
	return 0;
}
