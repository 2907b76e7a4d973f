pub fn split_words(text: &str) -> Vec<&str> {
    text.split(' ').filter(|w| !w.is_empty()).collect()
}

pub fn nth_word(text: &str, n: usize) -> &str {
    let words = split_words(text);
    words[n]
}

pub fn parse_port(text: &str) -> u16 {
    text.trim().parse().unwrap_or(0)
}

pub fn parse_count(text: &str) -> u32 {
    text.parse::<u32>().unwrap()
}

pub fn first_char(text: &str) -> char {
    text.chars().next().unwrap_or(' ')
}

pub fn truncate(text: &str, max: usize) -> &str {
    if text.len() <= max {
        return text;
    }
    &text[..max]
}

pub fn average(values: &[i32]) -> i32 {
    let sum: i32 = values.iter().sum();
    sum / values.len() as i32
}

pub fn clamp_index(i: isize, len: usize) -> usize {
    if i < 0 { 0 } else if i as usize >= len { len - 1 } else { i as usize }
}
