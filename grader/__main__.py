import sys

from grader.cli.main import main

sys.exit(main())
