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
 * jb-netd's hold on the kernel: the whole table compiled from a
 * netd_state and applied as one libnftables transaction.  On failure
 * the kernel keeps the table it had, so a container the change would
 * have admitted stays unknown to it, and unknown sources are refused.
 */

#ifndef JB_NETD_NFT_H
#define JB_NETD_NFT_H

#include <stddef.h>

#include "netd_state.h"
#include "nftgen.h"

/* once, before the lock-down: libnftables' context */
int	netd_nft_init(char *err, size_t errlen);
/*
 * Make the table enforce st.  fresh (at start-up, when what the kernel
 * holds is not known): the table is dropped and made again in the same
 * transaction.  Else one delta transaction from the last applied state
 * (nftgen_delta), naming only the containers that changed.  Either way
 * all or nothing; on success st becomes the applied state.  A container
 * whose entries no longer justify an address admitted through DNS has
 * its dynamic sets emptied in the same transaction, and the addresses
 * names still allowed justify admitted again for the time they had left.
 */
int	netd_nft_apply(const struct nftgen_net *, const struct netd_state *st,
	    int fresh, char *err, size_t errlen);
/*
 * The mode of container name, and nothing else, becomes mode: its
 * element in map ctrs and set strictdns, whatever the length of its
 * allowlist.  Same all or nothing; the applied state follows.
 */
int	netd_nft_mode(const struct nftgen_net *, const char *name,
	    enum nftgen_mode mode, char *err, size_t errlen);
/*
 * With the test switch on (jailbeed -T): the next apply gets a statement the kernel refuses (the
 * deletion of a chain that does not exist), so the whole batch fails.
 */
void	netd_nft_testhook_refuse_next(void);
/*
 * Admit el into container name's dynamic sets for timeout seconds, el[i]
 * for the DNS name names[i] (so that it leaves the kernel when no name
 * that answered it is allowed any more: netd_nft_apply), or
 * longer when an element already has more left; elements admitted
 * earlier with at least timeout - ADMITTED_SLACK s left are not sent
 * again (admitted.h), so a repeated answer costs no transaction.
 */
int	netd_nft_admit(const char *name, const struct nftgen_elem *el,
	    const char *const *names, size_t n, unsigned int timeout,
	    uint32_t *ticket, char *err, size_t errlen);
/*
 * Called after every admission netd_nft_admit made (and those it found
 * already made), with the same arguments: the egress gateway follows
 * what the resolver admitted.  It returns the number to wait for
 * before the admission holds there too (netd_nft_admit's *ticket), or
 * 0 when there is nothing to wait for.  NULL: nobody follows.
 */
extern uint32_t	(*netd_nft_admit_hook)(const char *name,
		    const struct nftgen_elem *el, const char *const *names,
		    size_t n, unsigned int timeout);
/* run text as one transaction */
int	netd_nft_run(const char *text, char *err, size_t errlen);
/* drop what a listing printed into libnftables's output buffer */
void	netd_nft_drain(void);
/*
 * Run a listing and return what it printed, valid until the next nft
 * call; NULL and nft's words in err when it failed.
 */
const char *netd_nft_list(const char *text, char *err, size_t errlen);
/* the chains of a table inet jailbee already there, -1 when there is none */
int	netd_nft_chains_found(void);
/* the same, printed as JSON */
const char *netd_nft_list_json(const char *text, char *err, size_t errlen);

#endif /* JB_NETD_NFT_H */
