from mwbmigrate.cli import main

main()
