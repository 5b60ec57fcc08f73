from grader.cli.entry import run

run()
