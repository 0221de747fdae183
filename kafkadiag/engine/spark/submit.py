"""The application file for ``spark-submit``: runs the kafkadiag command line inside the submitted driver.

``spark-submit [options] .../kafkadiag/engine/spark/submit.py analyze --engine spark ...``: the
master, deploy mode and resources come from spark-submit; kafkadiag joins the session it made.
"""

from kafkadiag.cli import main

if __name__ == "__main__":
    main()
