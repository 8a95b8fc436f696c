"""Release resolution: which engine release(s) a launch is judged against and how that is
known. ``targets.releases_of`` is the one entry the judge calls: it applies the run's options
and an install line's pin (``install_pins``), resolves the targets (``resolve``: pinned, image
tag, stored profile) and the range of releases the launch can meet (``ranges``;
``release_range`` for engines whose profiles have gaps; ``release_facts`` for release dates
and env reads). Beside it: a claimed floor (``release_floor``), what an official image holds
(``image_contents``) and the releases a launch works on (``works_on``)."""
