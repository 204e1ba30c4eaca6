//! The basics of siunitx, the LaTeX package for numbers and units, as
//! [`crate::text::latex`] shows them: `\num{1.2e-3}` → 1.2×10⁻³,
//! `\si{\kilo\gram\per\metre\squared}` (and `\unit`) → kg/m², `\SI{5}{\kilo\gram}`
//! (and `\qty`) → 5 kg with a no-break space, `\numrange{1}{5}` → 1 to 5,
//! `\SIrange{1}{5}{\milli\metre}` (and `\qtyrange`) → 1 mm to 5 mm. Options
//! (`\SI[...]`) are read and ignored. A unit macro this table does not
//! know is shown as its name (`\furlong` → `furlong`); nothing is dropped.

/// A piece of a number or unit: text, or a raised exponent.
#[derive(Debug, PartialEq)]
pub enum Piece {
    /// Text as it is shown.
    Text(String),
    /// An exponent, raised (`<sup>`, or Unicode superscripts).
    Super(String),
}

/// The pieces of a siunitx number: spaces dropped, `-` as a minus sign
/// `−`, `\pm` as ` ± `, an exponent (`e-3`, `E5`) as `×10` and a raised
/// power, `\times` as `×`, `^{..}` raised.
pub fn number(raw: &str) -> Vec<Piece> {
    let mut pieces = Vec::new();
    let mut text = String::new();
    let mut rest = raw.trim();
    while let Some(c) = rest.chars().next() {
        if let Some(after) = rest.strip_prefix('\\') {
            let name_len = after.bytes().take_while(u8::is_ascii_alphabetic).count();
            let name = &after[..name_len];
            text.push_str(match name {
                "pm" => " ± ",
                "mp" => " ∓ ",
                "times" => "×",
                "cdot" => "·",
                _ => name,
            });
            rest = &after[name_len..];
            continue;
        }
        rest = &rest[c.len_utf8()..];
        match c {
            'e' | 'E'
                if text.ends_with(|d: char| d.is_ascii_digit() || d == '.') || text.is_empty() =>
            {
                let exponent_len = rest
                    .char_indices()
                    .find(|&(i, d)| !(d.is_ascii_digit() || (i == 0 && matches!(d, '+' | '-'))))
                    .map_or(rest.len(), |(i, _)| i);
                let exponent = rest[..exponent_len]
                    .trim_start_matches('+')
                    .replace('-', "−");
                if !exponent.chars().any(|d| d.is_ascii_digit()) {
                    text.push(c);
                    continue;
                }
                if !text.is_empty() {
                    text.push('×');
                }
                text.push_str("10");
                pieces.push(Piece::Text(std::mem::take(&mut text)));
                pieces.push(Piece::Super(exponent));
                rest = &rest[exponent_len..];
            }
            '^' => {
                let (power, after) = script_argument(rest);
                if !power.is_empty() {
                    pieces.push(Piece::Text(std::mem::take(&mut text)));
                    pieces.push(Piece::Super(power.replace('-', "−")));
                }
                rest = after;
            }
            '-' => text.push('−'),
            '{' | '}' => {}
            c if c.is_whitespace() => {}
            c => text.push(c),
        }
    }
    pieces.push(Piece::Text(text));
    pieces.retain(|p| !matches!(p, Piece::Text(t) if t.is_empty()));
    pieces
}

/// The pieces of a siunitx unit: prefixes joined to their unit, units
/// apart by a space, `\per` as `/`, `\squared`, `\cubed`, `\tothe{n}` and
/// `^{n}` raised (`\square` and `\cubic` before a unit too), literal units
/// (`kg/m^2`) as written.
pub fn unit(raw: &str) -> Vec<Piece> {
    let mut pieces = Vec::new();
    let mut text = String::new();
    // A unit has just been written (the next one is set apart by a space).
    let mut after_unit = false;
    // A power for the unit after `\square` / `\cubic`.
    let mut pending_power: Option<&str> = None;
    let mut rest = raw.trim();
    let raise = |pieces: &mut Vec<Piece>, text: &mut String, power: &str| {
        if power.is_empty() {
            return;
        }
        pieces.push(Piece::Text(std::mem::take(text)));
        pieces.push(Piece::Super(power.replace('-', "−")));
    };
    while let Some(c) = rest.chars().next() {
        if let Some(after) = rest.strip_prefix('\\') {
            let name_len = after.bytes().take_while(u8::is_ascii_alphabetic).count();
            let name = &after[..name_len];
            rest = &after[name_len..];
            match name {
                "per" => {
                    text.push('/');
                    after_unit = false;
                }
                "squared" => raise(&mut pieces, &mut text, "2"),
                "cubed" => raise(&mut pieces, &mut text, "3"),
                "tothe" | "raiseto" => {
                    let (power, after) = script_argument(rest);
                    rest = after;
                    if name == "tothe" {
                        raise(&mut pieces, &mut text, &power);
                    }
                }
                "square" => pending_power = Some("2"),
                "cubic" => pending_power = Some("3"),
                _ => {
                    let (symbol, is_prefix) = match prefix(name) {
                        Some(p) => (p, true),
                        None => (unit_symbol(name).unwrap_or(name), false),
                    };
                    // `%` and `°` follow the number without a space.
                    if after_unit && !matches!(symbol, "%" | "°" | "′" | "″") {
                        text.push(' ');
                    }
                    text.push_str(symbol);
                    after_unit = !is_prefix;
                    if !is_prefix {
                        if let Some(power) = pending_power.take() {
                            raise(&mut pieces, &mut text, power);
                        }
                    }
                }
            }
            continue;
        }
        rest = &rest[c.len_utf8()..];
        match c {
            '^' => {
                let (power, after) = script_argument(rest);
                raise(&mut pieces, &mut text, &power);
                rest = after;
            }
            '.' | '~' => {
                text.push(' ');
                after_unit = false;
            }
            '{' | '}' => {}
            c if c.is_whitespace() => {}
            c => {
                text.push(c);
                after_unit = c.is_alphanumeric();
            }
        }
    }
    // `\square` with no unit after it: its power, not nothing.
    if let Some(power) = pending_power {
        raise(&mut pieces, &mut text, power);
    }
    pieces.push(Piece::Text(text));
    pieces.retain(|p| !matches!(p, Piece::Text(t) if t.is_empty()));
    pieces
}

/// Whether a unit's pieces start with a sign that follows a number
/// without a space (`10%`, `45°`).
pub fn hugs_number(pieces: &[Piece]) -> bool {
    matches!(pieces.first(), Some(Piece::Text(t)) if t.starts_with(['%', '°', '′', '″']))
}

/// The argument of `^` (or `\tothe`): a `{…}` group or one character, and
/// the text after it.
fn script_argument(rest: &str) -> (String, &str) {
    let rest = rest.trim_start();
    if let Some(group) = rest.strip_prefix('{') {
        let end = group.find('}').unwrap_or(group.len());
        let after = group.get(end + 1..).unwrap_or("");
        return (group[..end].trim().to_string(), after);
    }
    match rest.chars().next() {
        Some(c) => (c.to_string(), &rest[c.len_utf8()..]),
        None => (String::new(), rest),
    }
}

/// An SI prefix macro's symbol (`\kilo` → `k`).
fn prefix(name: &str) -> Option<&'static str> {
    Some(match name {
        "quecto" => "q",
        "ronto" => "r",
        "yocto" => "y",
        "zepto" => "z",
        "atto" => "a",
        "femto" => "f",
        "pico" => "p",
        "nano" => "n",
        "micro" => "µ",
        "milli" => "m",
        "centi" => "c",
        "deci" => "d",
        "deca" | "deka" => "da",
        "hecto" => "h",
        "kilo" => "k",
        "mega" => "M",
        "giga" => "G",
        "tera" => "T",
        "peta" => "P",
        "exa" => "E",
        "zetta" => "Z",
        "yotta" => "Y",
        "ronna" => "R",
        "quetta" => "Q",
        "kibi" => "Ki",
        "mebi" => "Mi",
        "gibi" => "Gi",
        "tebi" => "Ti",
        _ => return None,
    })
}

/// A unit macro's symbol (`\metre` → `m`, `\ohm` → `Ω`).
fn unit_symbol(name: &str) -> Option<&'static str> {
    Some(match name {
        "metre" | "meter" => "m",
        "gram" => "g",
        "second" => "s",
        "ampere" => "A",
        "kelvin" => "K",
        "mole" => "mol",
        "candela" => "cd",
        "hertz" => "Hz",
        "newton" => "N",
        "pascal" => "Pa",
        "joule" => "J",
        "watt" => "W",
        "coulomb" => "C",
        "volt" => "V",
        "farad" => "F",
        "ohm" => "Ω",
        "siemens" => "S",
        "weber" => "Wb",
        "tesla" => "T",
        "henry" => "H",
        "lumen" => "lm",
        "lux" => "lx",
        "becquerel" => "Bq",
        "gray" => "Gy",
        "sievert" => "Sv",
        "katal" => "kat",
        "radian" => "rad",
        "steradian" => "sr",
        "degreeCelsius" | "celsius" => "°C",
        "percent" => "%",
        "degree" => "°",
        "arcminute" => "′",
        "arcsecond" => "″",
        "minute" => "min",
        "hour" => "h",
        "day" => "d",
        "litre" | "liter" => "L",
        "tonne" => "t",
        "hectare" => "ha",
        "electronvolt" => "eV",
        "dalton" => "Da",
        "atomicmassunit" => "u",
        "astronomicalunit" => "au",
        "angstrom" => "Å",
        "bar" => "bar",
        "barn" => "b",
        "bel" => "B",
        "decibel" => "dB",
        "neper" => "Np",
        "byte" => "B",
        "bit" => "bit",
        "parsec" => "pc",
        "lightyear" => "ly",
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(pieces: &[Piece]) -> String {
        pieces
            .iter()
            .map(|p| match p {
                Piece::Text(t) => t.clone(),
                Piece::Super(s) => format!("^({s})"),
            })
            .collect()
    }

    #[test]
    fn numbers() {
        assert_eq!(text(&number("12345")), "12345");
        assert_eq!(text(&number("1.2e-3")), "1.2×10^(−3)");
        assert_eq!(text(&number("1E5")), "1×10^(5)");
        assert_eq!(text(&number("e+7")), "10^(7)");
        assert_eq!(text(&number("-3.5")), "−3.5");
        assert_eq!(text(&number("1.2 \\pm 0.1")), "1.2 ± 0.1");
        assert_eq!(text(&number("3 \\times 10^{8}")), "3×10^(8)");
        assert_eq!(text(&number("0xE")), "0xE");
        // Odd input stays readable.
        assert_eq!(text(&number("1e-")), "1e−");
        assert_eq!(text(&number("x^")), "x");
    }

    #[test]
    fn units() {
        assert_eq!(text(&unit("\\kilo\\gram")), "kg");
        assert_eq!(text(&unit("\\metre\\per\\second")), "m/s");
        assert_eq!(
            text(&unit("\\kilo\\gram\\metre\\per\\second\\squared")),
            "kg m/s^(2)"
        );
        assert_eq!(text(&unit("\\square\\metre")), "m^(2)");
        assert_eq!(text(&unit("\\micro\\ohm\\tothe{-1}")), "µΩ^(−1)");
        assert_eq!(text(&unit("\\percent")), "%");
        assert_eq!(text(&unit("\\degreeCelsius")), "°C");
        assert_eq!(text(&unit("kg/m^2")), "kg/m^(2)");
        assert_eq!(text(&unit("km.s^{-1}")), "km s^(−1)");
        assert_eq!(text(&unit("\\giga\\bit\\per\\second")), "Gbit/s");
        assert_eq!(text(&unit("\\furlong")), "furlong");
        assert_eq!(text(&unit("\\square")), "^(2)");
        assert_eq!(text(&unit("^")), "");
        assert!(hugs_number(&unit("\\percent")));
        assert!(!hugs_number(&unit("\\kilo\\gram")));
    }
}
