/*
 * show_where.c: what `antenna show` says of where a page is
 * (ant_pagestate.h): its state, where it moved from and when, a permanent
 * redirect counted towards a move, the run of failures that makes it gone.
 * Apart from show.c so that each stays a short file.
 */
#include <stdio.h>

#include "antenna.h"
#include "ant_pagestate.h"

void antcmd_show_whereabouts(const ant_store_page *p, int64_t tz)
{
	char b[128];

	printf("state:          %s\n", ant_page_state_name(ant_page_state_of(p)));
	if (p->moved_from) {
		printf("moved from:     %s\n", cli_t(p->moved_from));
		printf("moved at:       %s\n", antcmd_when(b, sizeof b, p->moved_at, tz));
	}
	if (p->redirect_to && p->redirect_count > 0)
		printf("redirected to:  %s (permanently, %lld check%s in a row; it moves there at "
		       "'init --move-after')\n", cli_t(p->redirect_to), (long long)p->redirect_count,
		       p->redirect_count == 1 ? "" : "s");
	if (p->failing_since)
		printf("failing since:  %s%s\n", antcmd_when(b, sizeof b, p->failing_since, tz),
		       p->gone_at ? " (gone: checked once a day until it answers)" : "");
}
