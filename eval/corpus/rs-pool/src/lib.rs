use std::sync::{Arc, Mutex};
use std::thread;

pub struct Counter {
    pub value: Arc<Mutex<u64>>,
}

impl Counter {
    pub fn add(&self, n: u64) {
        let mut v = self.value.lock().unwrap();
        *v += n;
    }

    pub fn get(&self) -> u64 {
        *self.value.lock().unwrap()
    }
}

pub fn spawn_all(jobs: Vec<Box<dyn FnOnce() + Send>>) {
    for job in jobs {
        thread::spawn(job);
    }
}

pub fn transfer(a: &Mutex<i64>, b: &Mutex<i64>, amount: i64) {
    let mut from = a.lock().unwrap();
    let mut to = b.lock().unwrap();
    *from -= amount;
    *to += amount;
}

pub fn read_env(name: &str) -> String {
    std::env::var(name).unwrap_or_default()
}

pub fn checked_total(values: &[u32]) -> Option<u32> {
    values.iter().try_fold(0u32, |acc, v| acc.checked_add(*v))
}

pub fn last(values: &[u32]) -> u32 {
    values[values.len() - 1]
}
