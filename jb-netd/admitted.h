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
 * What jb-netd last admitted into the containers' dynamic sets, and until
 * when, so that an answer repeated while its address is still admitted
 * for long enough costs no transaction, and no admission ever shortens
 * the life an element already has in the kernel (a pool address admitted
 * for a day is not cut to a DNS record's TTL).  Each element is noted
 * with the name it was answered for, so that when a container's entries
 * narrow, what no allowed name justifies any more can be taken out of
 * the kernel at once while the rest stays.  Pure: the caller gives the
 * time.  Cleared when the table is made afresh.
 */

#ifndef JB_ADMITTED_H
#define JB_ADMITTED_H

#include <stddef.h>
#include <stdint.h>

#include "nftgen.h"
#include "policy.h"

/* an element with at least timeout - ADMITTED_SLACK s left is not sent */
#define ADMITTED_SLACK	30

/* entries one name can match, as far as a record's check looks */
#define ADMITTED_MATCHES	64

size_t	admitted_filter(const char *ctr, struct nftgen_elem *el, size_t n,
	    unsigned int *timeout, int64_t now);
/* el[i] was admitted for the DNS name names[i]; -1 out of memory */
int	admitted_note(const char *ctr, const char *const *names,
	    const struct nftgen_elem *el, size_t n, unsigned int timeout,
	    int64_t now);
/*
 * ctr's entries become e[0..ne): 0 when every element admitted for it is
 * still justified (an entry of e admits a name it was answered for, with
 * its port and protocol).  Else 1 (or -1, out of memory) and its dynamic
 * sets must be emptied; *out (to be freed, NULL when none) are then the
 * *nout elements to admit again, each until its latest end.  Also 1 when
 * a note was lost (admitted_note's -1) since the last admitted_clear.
 * Changes nothing: admitted_prune once the kernel has the change.
 */
struct admitted_kept {
	struct nftgen_elem	 el;
	int64_t			 until;
};
int	admitted_keep(const char *ctr, const struct egress_entry *e,
	    size_t ne, int64_t now, struct admitted_kept **out, size_t *nout);
/* drop ctr's records that e[0..ne) no longer justifies */
void	admitted_prune(const char *ctr, const struct egress_entry *e,
	    size_t ne);
/* drop every record of ctr (gone, or its sets were deleted) */
void	admitted_forget(const char *ctr);
void	admitted_clear(void);
size_t	admitted_count(void);

#endif /* JB_ADMITTED_H */
