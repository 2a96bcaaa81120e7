/*
 * Copyright (c) 2026 The JailBee authors
 *
 * Permission to use, copy, modify, and distribute this software for any
 * purpose with or without fee is hereby granted, provided that the above
 * copyright notice and this permission notice appear in all copies.
 *
 * THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES.
 */

/*
 * libFuzzer target for the /etc/hosts block (hostspin.c).  The input is
 * split at its first NUL into a file and a block.  Whatever the file,
 * merging a valid block twice gives what merging it once did, taking it
 * out afterwards leaves no sentinel line and the same result as taking
 * it out of the original, and the block merged in is found again.
 */

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hostspin.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char	*file = (const char *)data, *blk = "", *nul;
	size_t		 flen = size, blen = 0;
	char		*once, *twice, *out, *strip;
	size_t		 l1, l2, lo, ls;

	if ((nul = memchr(data, '\0', size)) != NULL) {
		flen = (size_t)(nul - file);
		blk = nul + 1;
		blen = size - flen - 1;
	}
	if (!hostspin_valid(blk, blen))
		blk = "192.0.2.1 a.example\n", blen = strlen(blk);
	if (hostspin_merge(file, flen, blk, blen, &once, &l1) == -1)
		return 0;
	if (hostspin_merge(once, l1, blk, blen, &twice, &l2) == -1 ||
	    l1 != l2 || memcmp(once, twice, l1) != 0)
		abort();
	if (memmem(once, l1, blk, blen) == NULL)
		abort();
	if (hostspin_merge(once, l1, "", 0, &out, &lo) == -1 ||
	    hostspin_merge(file, flen, "", 0, &strip, &ls) == -1)
		abort();
	/* the strip of the original may lack the newline the block added */
	if (lo < ls || lo > ls + 1 || memcmp(out, strip, ls) != 0)
		abort();
	/* no line of the result is a BEGIN sentinel any more */
	if ((lo >= sizeof(HOSTSPIN_BEGIN) && memcmp(out, HOSTSPIN_BEGIN "\n",
	    sizeof(HOSTSPIN_BEGIN)) == 0) || memmem(out, lo,
	    "\n" HOSTSPIN_BEGIN "\n", sizeof(HOSTSPIN_BEGIN) + 1) != NULL)
		abort();
	free(once);
	free(twice);
	free(out);
	free(strip);
	return 0;
}
