x = 'unfinished
