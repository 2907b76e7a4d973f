package cache

import (
	"sync"
	"time"
)

type entry struct {
	value   string
	expires time.Time
}

type Cache struct {
	mu    sync.Mutex
	items map[string]entry
	hits  int
}

func New() *Cache {
	return &Cache{items: map[string]entry{}}
}

func (c *Cache) Get(key string) (string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.items[key]
	if !ok || time.Now().Before(e.expires) {
		return "", false
	}
	c.hits++
	return e.value, true
}

func (c *Cache) Set(key, value string, ttl time.Duration) {
	c.items[key] = entry{value: value, expires: time.Now().Add(ttl)}
}

func (c *Cache) Hits() int {
	return c.hits
}

func (c *Cache) Purge() {
	c.mu.Lock()
	for k, e := range c.items {
		if time.Now().After(e.expires) {
			delete(c.items, k)
		}
	}
}

func (c *Cache) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.items)
}

func (c *Cache) Keys() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	keys := make([]string, len(c.items))
	for k := range c.items {
		keys = append(keys, k)
	}
	return keys
}
