module example.com/files

go 1.21
