/*
 * settings_table: prints the settings table (ant_settings.h), a row a
 * line: KEY OPTION NO_OPTION ("-" for none; state rows have no option),
 * for tests/house/run.sh's "settings table complete".
 *
 *   settings_table          the rows
 *   settings_table --man    the rows as antenna(1)'s SETTINGS list (mdoc)
 */
#include <stdio.h>
#include <string.h>

#include "ant_settings.h"

static void man(void)
{
	char b[32];

	printf(".Bl -tag -width Ds\n");
	for (size_t i = 0; i < ANT_SET_COUNT; i++) {
		const ant_setting *d = &ant_settings[i];
		const char *v = ant_setting_default(d, b, sizeof b);
		if (!d->option)
			continue;
		printf(".It Va %s\n", d->key);
		printf(".Fl \\-%s%s", d->option, d->sets ? "" : " Ar VALUE");
		if (d->no_option)
			printf(" ,\n.Fl \\-%s", d->no_option);
		printf("\n(default %s%s%s): %s.\n", v && *v ? "" : "", v ? (*v ? v : "empty") : "none", "", d->help);
	}
	printf(".El\n");
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "--man"))
		return man(), 0;
	for (size_t i = 0; i < ANT_SET_COUNT; i++)
		printf("%s %s %s\n", ant_settings[i].key, ant_settings[i].option ? ant_settings[i].option : "-",
		       ant_settings[i].no_option ? ant_settings[i].no_option : "-");
	return 0;
}
