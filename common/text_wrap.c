// SPDX-License-Identifier: GPL-2.0
/* Text wrapped at 72 columns (text_wrap.h). */
#include "text_wrap.h"

#include <string.h>

void wrap_print(FILE *f, const char *first, const char *next, const char *text)
{
	const char *prefix = first;

	do {
		size_t room = WRAP_COLUMNS - strlen(prefix), len = strlen(text), cut = len;

		if (len > room) {
			cut = room;
			while (cut > 0 && text[cut] != ' ')
				cut--;
			if (!cut)	/* one word longer than the line: cut it */
				cut = room;
		}
		fprintf(f, "%s%.*s\n", prefix, (int)cut, text);
		text += cut;
		while (*text == ' ')
			text++;
		prefix = next;
	} while (*text);
}
