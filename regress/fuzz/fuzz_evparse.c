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
 * libFuzzer target for one message of Incus's event stream: whatever is
 * taken is a name the suite takes and an action of [a-z-] that fits.
 */

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "evparse.h"
#include "names.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char	*text, name[64], action[32];
	size_t	 i;
	int	 rc;

	if ((text = malloc(size + 1)) == NULL)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	rc = evparse(text, name, sizeof(name), action, sizeof(action));
	if (rc != 0 && rc != -1 && rc != EVPARSE_NETWORK)
		abort();
	if (rc == 0) {
		if (!name_instance_ok(name) || (strncmp(action, "instance-",
		    9) != 0 && strcmp(action, "cluster-member-updated") != 0))
			abort();
		for (i = 0; action[i] != '\0'; i++)
			if ((action[i] < 'a' || action[i] > 'z') &&
			    action[i] != '-')
				abort();
	}
	free(text);
	return 0;
}
