goto missing
