// SPDX-License-Identifier: GPL-2.0
/*
 * In-guest smoke test: on loopback, a TCP_SAVE_SYN=1 listener's accepted socket returns an IPv4
 * header followed by a TCP SYN (no ACK); with TCP_SAVE_SYN=2 a 14-byte MAC header comes first.
 */
#include <netinet/in.h>
#include <stdint.h>
#include <unistd.h>

#include "check.h"
#include "net_helpers.h"

static void one_mode(int mode)
{
	uint8_t syn[512];
	int lfd, cfd, afd, n;
	size_t mac = mode == 2 ? 14 : 0;

	lfd = start_listener(AF_INET, "127.0.0.1", 0, mode, 8);
	CHECK(lfd >= 0, "listener (mode %d)", mode);
	if (lfd < 0)
		return;
	cfd = connect_to(AF_INET, "127.0.0.1", socket_port(lfd));
	afd = accept(lfd, NULL, NULL);
	CHECK(cfd >= 0 && afd >= 0, "connect/accept (mode %d)", mode);
	n = afd >= 0 ? read_saved_syn(afd, syn, sizeof(syn), NULL) : -1;
	CHECK(n >= (int)(mac + 20 + 20), "mode %d: saved SYN of %d bytes, want >= %zu", mode, n,
	      mac + 40);
	if (n >= (int)(mac + 40)) {
		const uint8_t *ip = syn + mac, *tcp = ip + (ip[0] & 0x0f) * 4;

		if (mode == 2)
			CHECK(syn[12] == 0x08 && syn[13] == 0x00,
			      "mode 2: MAC header ethertype %02x%02x, want 0800", syn[12], syn[13]);
		CHECK((ip[0] >> 4) == 4, "mode %d: IP version %d, want 4", mode, ip[0] >> 4);
		CHECK(ip[9] == IPPROTO_TCP, "mode %d: IP protocol %d, want 6", mode, ip[9]);
		CHECK((tcp[13] & 0x02) && !(tcp[13] & 0x10), "mode %d: TCP flags 0x%02x, want SYN only",
		      mode, tcp[13]);
		CHECK(n == (int)(mac + (ip[0] & 0x0f) * 4 + (tcp[12] >> 4) * 4),
		      "mode %d: %d bytes, want MAC+IP+TCP header lengths", mode, n);
		printf("mode %d: %d bytes saved: %s%s-byte IPv4 + %d-byte TCP SYN\n", mode, n,
		       mode == 2 ? "14-byte MAC + " : "", (ip[0] & 0x0f) * 4 == 20 ? "20" : ">20",
		       (tcp[12] >> 4) * 4);
	}
	close(afd);
	close(cfd);
	close(lfd);
}

int main(void)
{
	one_mode(1);
	one_mode(2);
	return check_report("guest_smoke");
}
