"""my_fork: a toy downstream fork of SGLang used to demo `mwbmigrate`."""
