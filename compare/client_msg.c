// SPDX-License-Identifier: GPL-2.0
/* The generators' end of the channel to syntwin-server (client_msg.h). */
#include "client_msg.h"

#include <stdio.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "net_helpers.h"

int client_channel_connect(void)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s", CLIENT_SOCK_PATH);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sun, sizeof(sun)) < 0) {
		log_err("connect %s (is syntwin-server running?)", CLIENT_SOCK_PATH);
		return -1;
	}
	return fd;
}
