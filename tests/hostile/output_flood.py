import sys

chunk = "x" * (1 << 20)
for _ in range(500):  # 500 MB
    sys.stdout.write(chunk)
    sys.stderr.write(chunk)
