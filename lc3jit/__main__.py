from lc3jit.launch import main

main()
