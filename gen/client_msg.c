// SPDX-License-Identifier: GPL-2.0
/* The generators' messages to syntwin-server's handler (client_msg.h). */
#include "client_msg.h"

#include <arpa/inet.h>
#include <linux/tcp.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "net_helpers.h"

void client_msg_flow(struct active_msg *m, int family, const void *client, uint16_t client_port,
		     const void *server, uint16_t server_port)
{
	m->family = family;
	inet_ntop(family, client, m->client, sizeof(m->client));
	inet_ntop(family, server, m->server, sizeof(m->server));
	m->client_port = client_port;
	m->server_port = server_port;
}

int md5_key_for(int fd, int family, const char *peer)
{
	struct tcp_md5sig sig = { .tcpm_keylen = sizeof(SYNTWIN_MD5_KEY) - 1 };
	struct sockaddr_storage ss;

	make_sockaddr(family, peer, 0, &ss);
	memcpy(&sig.tcpm_addr, &ss, sizeof(ss));
	memcpy(sig.tcpm_key, SYNTWIN_MD5_KEY, sig.tcpm_keylen);
	if (setsockopt(fd, IPPROTO_TCP, TCP_MD5SIG, &sig, sizeof(sig))) {
		log_err("setsockopt(TCP_MD5SIG for %s)", peer);
		return -1;
	}
	return 0;
}
