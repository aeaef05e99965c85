/*
 * update_config.c: ant_update_config(), the update settings antenna init
 * keeps in the database, read over the library's defaults: one place for
 * every caller of ant_update() and ant_update_recall() (update, add,
 * import), so that none of them reads a setting the others miss.
 */
#include "ant_pagestate.h"
#include <stdio.h>
#include <stdlib.h>

#include "ant_polite.h"
#include "ant_store.h"
#include "ant_update.h"
#include "ant_settings.h"

void ant_update_config(ant_store *s, ant_update_opts *u)
{
	u->max_age = ant_setting_int(s, ANT_SET_MAX_AGE);
	u->max_future = ant_setting_int(s, ANT_SET_MAX_FUTURE);
	u->tz = ant_setting_int(s, ANT_SET_TZ);
	u->keep_records = ant_setting_int(s, ANT_SET_KEEP_EVENTS);
	if (!u->limits.allow_file)
		u->limits.allow_file = ant_setting_int(s, ANT_SET_ALLOW_FILE) != 0;
	u->limits.allow_private = ant_setting_int(s, ANT_SET_ALLOW_PRIVATE) != 0;
	u->move_after = ant_setting_int(s, ANT_SET_MOVE_AFTER);
	u->gone_days = ant_setting_int(s, ANT_SET_GONE_DAYS);
	/* politeness: init --contact, --min-delay, --max-retry-after */
	char *c = ant_setting_text(s, ANT_SET_CONTACT);
	if (c && ant_target_contact_check(c, NULL) == 0)
		snprintf(u->limits.contact, sizeof u->limits.contact, "%s", c);
	free(c);
	u->limits.min_delay_ms = (long)ant_setting_int(s, ANT_SET_MIN_DELAY);
	u->limits.max_retry_after = (long)ant_setting_int(s, ANT_SET_MAX_RETRY_AFTER);
}
