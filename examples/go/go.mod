module example.com/vigia-receiver

go 1.19
