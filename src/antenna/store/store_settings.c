/*
 * store_settings.c: the settings of the table (ant_settings.h) read and
 * written through the config rows (store.c): a setting left unset reads
 * as its row's default, and a value is checked against its row before
 * it is stored.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ant_store.h"
#include "atom_evstore.h"

int64_t ant_setting_int(ant_store *s, ant_setting_id id)
{
	const ant_setting *d = &ant_settings[id];
	char *v;
	int64_t n;

	if (d->type != ANT_SETT_KEEP)
		return ant_store_config_int(s, d->key, d->num);
	v = ant_store_config_get(s, d->key);
	n = v && !strcmp(v, "all") ? ATOM_EVSTORE_KEEP_ALL : ant_store_config_int(s, d->key, d->num);
	free(v);
	return n < 0 ? ATOM_EVSTORE_KEEP_ALL : n;
}

char *ant_setting_text(ant_store *s, ant_setting_id id)
{
	const ant_setting *d = &ant_settings[id];
	char b[32], *v = ant_store_config_get(s, d->key);
	const char *dflt;

	if (v || !(dflt = ant_setting_default(d, b, sizeof b)))
		return v;
	return strdup(dflt);
}

int ant_setting_is_set(ant_store *s, ant_setting_id id)
{
	char *v = ant_store_config_get(s, ant_settings[id].key);
	int set = v != NULL;

	free(v);
	return set;
}

int ant_setting_set(ant_store *s, ant_setting_id id, const char *v, lb_error *err)
{
	int rc = ant_setting_check(&ant_settings[id], v, err);

	return rc < 0 ? rc : ant_store_config_set(s, ant_settings[id].key, v, err);
}

int ant_setting_set_int(ant_store *s, ant_setting_id id, int64_t v, lb_error *err)
{
	char b[32];

	snprintf(b, sizeof b, "%lld", (long long)v);
	return ant_setting_set(s, id, b, err);
}

int ant_settings_write_defaults(ant_store *s, lb_error *err)
{
	char b[32];

	for (size_t i = 0; i < ANT_SET_COUNT; i++) {
		const ant_setting *d = &ant_settings[i];
		const char *dflt = ant_setting_default(d, b, sizeof b);
		int rc;

		if (!(d->flags & ANT_SETF_CREATE) || !dflt || ant_setting_is_set(s, d->id))
			continue;
		if ((rc = ant_store_config_set(s, d->key, dflt, err)) < 0)
			return rc;
	}
	return 0;
}
