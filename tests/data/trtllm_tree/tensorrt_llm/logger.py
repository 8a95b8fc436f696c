levels = {"error": 1, "info": 2}
