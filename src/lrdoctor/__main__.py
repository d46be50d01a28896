from lrdoctor.cli import main

raise SystemExit(main())
