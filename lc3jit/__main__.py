from lc3jit.cli import main

main()
