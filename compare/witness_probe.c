// SPDX-License-Identifier: GPL-2.0
/* The witness's answer to a generator waiting on a SYN (witness_probe.h). */
#include "witness_probe.h"

#include <arpa/inet.h>
#include <string.h>
#include <sys/socket.h>

#include "capture_client.h"

bool witness_dropped_every_copy(void *cc, const struct flow *f, uint32_t isn)
{
	struct capture_key k = { .family = f->family == 4 ? AF_INET : AF_INET6, .seq = isn,
				 .sport = htons(f->sport), .dport = htons(f->dport) };
	size_t alen = f->family == 4 ? 4 : 16;
	struct capture_rec r;

	memcpy(k.saddr, f->src, alen);
	memcpy(k.daddr, f->dst, alen);
	return capture_peek_flow(cc, &k, &r) == 0 && capture_all_dropped(&r);
}
