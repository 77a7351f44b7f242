// SPDX-License-Identifier: GPL-2.0
/* The run's flow type (flow.h). */
#include "flow.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>

void flow_set(struct capture_key *k, int family, const void *src, uint16_t sport,
	      const void *dst, uint16_t dport, uint32_t isn)
{
	size_t alen = family == AF_INET6 ? 16 : 4;
	uint8_t s[16], d[16];

	/* (@src or @dst may point into @k itself) */
	memcpy(s, src, alen);
	memcpy(d, dst, alen);
	memset(k, 0, sizeof(*k));
	k->family = (uint8_t)family;
	memcpy(k->saddr, s, alen);
	memcpy(k->daddr, d, alen);
	k->sport = htons(sport);
	k->dport = htons(dport);
	k->seq = isn;
}

/* The address and port of @ss into @addr (16 bytes) and @port (network order). */
static void addr_of(const struct sockaddr_storage *ss, uint8_t *addr, uint16_t *port)
{
	if (ss->ss_family == AF_INET6) {
		const struct sockaddr_in6 *a = (const void *)ss;

		memcpy(addr, &a->sin6_addr, 16);
		*port = a->sin6_port;
	} else if (ss->ss_family == AF_INET) {
		const struct sockaddr_in *a = (const void *)ss;

		memcpy(addr, &a->sin_addr, 4);
		*port = a->sin_port;
	}
}

void flow_of_socket(int fd, bool peer_sends, struct capture_key *k)
{
	struct sockaddr_storage self = { 0 }, peer = { 0 };
	socklen_t sl = sizeof(self), pl = sizeof(peer);

	memset(k, 0, sizeof(*k));
	getsockname(fd, (struct sockaddr *)&self, &sl);
	getpeername(fd, (struct sockaddr *)&peer, &pl);
	k->family = (uint8_t)self.ss_family;
	if (peer_sends) {
		addr_of(&peer, k->saddr, &k->sport);
		addr_of(&self, k->daddr, &k->dport);
	} else {
		addr_of(&self, k->saddr, &k->sport);
		addr_of(&peer, k->daddr, &k->dport);
	}
}

bool flow_same(const struct capture_key *a, const struct capture_key *b)
{
	return a->family == b->family && a->sport == b->sport && a->dport == b->dport &&
	       !memcmp(a->saddr, b->saddr, 16) && !memcmp(a->daddr, b->daddr, 16);
}

void flow_text(const struct capture_key *k, char *saddr, char *daddr)
{
	saddr[0] = daddr[0] = 0;
	if (k->family != AF_INET && k->family != AF_INET6)
		return;
	inet_ntop(k->family, k->saddr, saddr, 46);
	inet_ntop(k->family, k->daddr, daddr, 46);
}
