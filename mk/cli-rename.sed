# cli-rename.sed: the renames made when both commands got one CLI kit (cmd/cli.[ch]),
# for code written against the old names: sed -i -f mk/cli-rename.sed FILE...
# cli_ is the shared kit (cmd/cli.h); antcmd_/ANTCMD_ the antenna command's
# own helpers (cmd/antenna/antenna.h); lirscmd_/LIRSCMD_ the lirs command's
# (cmd/lirs/common.h).  The library keeps ant_ (src/antenna).
# By hand: ant_parse_bytes(S, &N) (silent; the caller printed a usage error)
# became cli_parse_size("--OPT", S, &N), which prints its own message.
s/\bant_prog\b/cli_prog/g
s/\bant_error\b/cli_error/g
s/\bant_getopt\b/cli_getopt/g
s/\bant_usage_error\b/cli_usage_error/g
s/\bant_help\b/cli_help/g
s/\bant_parse_int64\b/cli_parse_int64/g
s/\bANT_OK\b/CLI_OK/g
s/\bANT_FATAL\b/CLI_FATAL/g
s/\bANT_BADOPT\b/CLI_BADOPT/g
s/\bANT_NOTFOUND\b/ANTCMD_NOTFOUND/g
s/\bANT_KEEP_EVENTS\b/ANTCMD_KEEP_EVENTS/g
s/\bANT_KEEP_DEFAULT\b/ANTCMD_KEEP_DEFAULT/g
s/\bant_db_path\b/antcmd_db_path/g
s/\bant_open\b/antcmd_open/g
s/\bant_open_url\b/antcmd_open_url/g
s/\bant_open_no_operand\b/antcmd_open_no_operand/g
s/\bant_url_key\b/antcmd_url_key/g
s/\bant_check_url\b/antcmd_check_url/g
s/\bant_now\b/antcmd_now/g
s/\bant_parse_keep\b/antcmd_parse_keep/g
s/\bant_keep_events\b/antcmd_keep_events/g
s/\bcli_read\b/lirscmd_read/g
s/\bcli_read_all\b/lirscmd_read_all/g
s/\bcli_format_diag\b/lirscmd_format_diag/g
s/\bcli_print_diag\b/lirscmd_print_diag/g
s/\bcli_writer_warnings\b/lirscmd_writer_warnings/g
s/\bcli_parse_charset\b/lirscmd_parse_charset/g
s/\bCLI_EIO\b/LIRSCMD_EIO/g
s/\bCLI_PROBLEMS\b/LIRSCMD_PROBLEMS/g
