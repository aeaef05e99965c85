/* Placeholder until lirs merge lands. */
#include <stdio.h>
#include "cmds.h"
int cmd_merge(int argc, char **argv)
{
	(void)argc; (void)argv;
	fprintf(stderr, "lirs: 'merge' is not built yet\n");
	return 2;
}
