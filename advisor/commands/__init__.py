"""One module per command family; each declares its commands (`COMMAND_LINES`) beside their run functions."""
