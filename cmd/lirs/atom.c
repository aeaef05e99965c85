/* Placeholder until lirs atom lands. */
#include <stdio.h>
#include "cmds.h"
int cmd_atom(int argc, char **argv)
{
	(void)argc; (void)argv;
	fprintf(stderr, "lirs: 'atom' is not built yet\n");
	return 2;
}
