"""Release resolution: which engine release(s) a launch is judged against and how that is
known (``resolve``: pinned, image tag, stored profile, install line in ``install_pins``), the
range of releases it can meet and the verdict over it (``ranges``; ``release_range`` for
engines whose profiles have gaps; ``release_facts`` for release dates and env reads), a
claimed floor (``release_floor``), what an official image holds (``image_contents``) and the
releases a launch works on (``works_on``)."""
