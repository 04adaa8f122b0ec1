//! The PTX lexer (spec §4.1–§4.5): turns source text into a vector of tokens with byte
//! spans. Comments and whitespace are skipped; `@@DWARF` lines become one token each.
//! Invariant: lexing never fails — text that is no token becomes [`Tok::Error`], which the
//! parser reports as a `syntax` diagnostic.

use crate::span::Span;
use logos::Logos;

/// A token kind. The token's text is always recovered from the source by its span.
#[derive(Logos, Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[logos(skip r"[ \t\r\n\f]+")]
#[logos(skip r"//[^\n]*")]
pub enum Tok {
    /// `.name` or `.name::sub` — a directive, a state space, a type or a modifier; also the
    /// modifiers that start with digits (`.1d`, `.2d`, `.3d`, `.2dms` of the texture and tensor
    /// instructions, the `tcgen05` shapes `.16x64b`, `.32x32b`, `.16x32bx2`; a digit run
    /// followed by `e`/`E` stays a float such as `.5e3`).
    #[regex(r"\.[A-Za-z_$][A-Za-z0-9_$]*(::[A-Za-z0-9_$]+)*")]
    #[regex(r"\.[0-9]+[A-DF-Za-df-z_$][A-Za-z0-9_$]*(::[A-Za-z0-9_$]+)*")]
    Dot,
    /// An identifier (§4.4): `[a-zA-Z]{followsym}*` or `[_$%]{followsym}+`.
    #[regex(r"[a-zA-Z][a-zA-Z0-9_$]*|[_$%][a-zA-Z0-9_$]+")]
    Ident,
    /// The sink symbol `_`.
    #[token("_", priority = 3)]
    Underscore,
    /// Decimal integer, optionally with `U` suffix.
    #[regex(r"[1-9][0-9]*U?|0U?")]
    Dec,
    /// Hexadecimal integer.
    #[regex(r"0[xX][0-9a-fA-F]+U?")]
    Hex,
    /// Octal integer.
    #[regex(r"0[0-7]+U?")]
    Oct,
    /// Binary integer.
    #[regex(r"0[bB][01]+U?")]
    Bin,
    /// `0fXXXXXXXX` single-precision or `0dXXXXXXXXXXXXXXXX` double-precision hex float.
    /// The digit count is checked by the parser so the message can say what is wrong.
    #[regex(r"0[fFdD][0-9a-fA-F]+")]
    HexFloat,
    /// A decimal floating-point constant.
    #[regex(r"[0-9]+\.[0-9]*([eE][+-]?[0-9]+)?|\.[0-9]+([eE][+-]?[0-9]+)?|[0-9]+[eE][+-]?[0-9]+")]
    DecFloat,
    /// A string literal (used by `.file`, `.pragma`, `.section` contents).
    #[regex(r#""([^"\\\n]|\\.)*""#)]
    Str,
    /// `@@DWARF` and the rest of its line (kept verbatim).
    #[regex(r"@@DWARF[^\n]*")]
    Dwarf,
    /// A `#` preprocessor line that survived preprocessing (reported as an error).
    #[regex(r"#[^\n]*")]
    Hash,
    #[token(",")]
    Comma,
    #[token(";")]
    Semi,
    #[token(":")]
    Colon,
    #[token("(")]
    LParen,
    #[token(")")]
    RParen,
    #[token("[")]
    LBracket,
    #[token("]")]
    RBracket,
    #[token("{")]
    LBrace,
    #[token("}")]
    RBrace,
    #[token("<")]
    Lt,
    #[token(">")]
    Gt,
    #[token("<=")]
    Le,
    #[token(">=")]
    Ge,
    #[token("==")]
    EqEq,
    #[token("!=")]
    Ne,
    #[token("<<")]
    Shl,
    #[token(">>")]
    Shr,
    #[token("&&")]
    AndAnd,
    #[token("||")]
    OrOr,
    #[token("+")]
    Plus,
    #[token("-")]
    Minus,
    #[token("*")]
    Star,
    #[token("/")]
    Slash,
    #[token("%")]
    Percent,
    #[token("!")]
    Bang,
    #[token("~")]
    Tilde,
    #[token("&")]
    Amp,
    #[token("|")]
    Pipe,
    #[token("^")]
    Caret,
    #[token("?")]
    Question,
    #[token("=")]
    Eq,
    #[token("@")]
    At,
    /// `/* ... */` (filtered out by [`lex`]; unterminated comments become [`Tok::Error`]).
    #[token("/*", block_comment)]
    BlockComment,
    /// Anything else.
    Error,
    /// End of input (appended once by [`lex`]).
    Eof,
}

fn block_comment(lx: &mut logos::Lexer<Tok>) -> Result<(), ()> {
    match lx.remainder().find("*/") {
        Some(i) => {
            lx.bump(i + 2);
            Ok(())
        }
        None => {
            lx.bump(lx.remainder().len());
            Err(())
        }
    }
}

/// A token: kind and byte span.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Token {
    pub tok: Tok,
    pub span: Span,
}

/// Lexes a whole source text. The last token is always [`Tok::Eof`].
pub fn lex(src: &str) -> Vec<Token> {
    let mut out = Vec::with_capacity(src.len() / 4);
    let mut lx = Tok::lexer(src);
    while let Some(r) = lx.next() {
        let sp = lx.span();
        let tok = r.unwrap_or(Tok::Error);
        if tok == Tok::BlockComment {
            continue;
        }
        out.push(Token {
            tok,
            span: Span::new(sp.start, sp.end),
        });
    }
    out.push(Token {
        tok: Tok::Eof,
        span: Span::new(src.len(), src.len()),
    });
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(s: &str) -> Vec<Tok> {
        lex(s).into_iter().map(|t| t.tok).collect()
    }

    #[test]
    fn lexes_identifiers_and_modifiers() {
        use Tok::*;
        assert_eq!(
            kinds("add.s32 %r1, $x, _a;"),
            vec![Ident, Dot, Ident, Comma, Ident, Comma, Ident, Semi, Eof]
        );
        assert_eq!(kinds("ld.shared::cta"), vec![Ident, Dot, Eof]);
        assert_eq!(
            kinds("tcgen05.ld.sync.aligned.16x32bx2.x2.b32 .32x32b .5e3"),
            vec![Ident, Dot, Dot, Dot, Dot, Dot, Dot, Dot, DecFloat, Eof]
        );
        assert_eq!(kinds("_"), vec![Underscore, Eof]);
        assert_eq!(
            kinds("cp.async.bulk.tensor.2d.global tex.2dms x+.5"),
            vec![
                Ident, Dot, Dot, Dot, Dot, Dot, Ident, Dot, Ident, Plus, DecFloat, Eof
            ]
        );
        // Modifiers that start with digits; `.5e3` stays a float.
        assert_eq!(kinds("tld4.r.2d.v4"), vec![Ident, Dot, Dot, Dot, Eof]);
        assert_eq!(kinds("tex.a2dms .3d"), vec![Ident, Dot, Dot, Eof]);
        assert_eq!(kinds(".5e3 .5"), vec![DecFloat, DecFloat, Eof]);
    }

    #[test]
    fn lexes_constants() {
        use Tok::*;
        assert_eq!(
            kinds("0x1F 017 0b101 12U 0 0f3F800000 0d3FF0000000000000 1.5 1e3 .5"),
            vec![
                Hex, Oct, Bin, Dec, Dec, HexFloat, HexFloat, DecFloat, DecFloat, DecFloat, Eof
            ]
        );
    }

    #[test]
    fn skips_comments() {
        use Tok::*;
        assert_eq!(kinds("a // x\n /* y \n z */ b"), vec![Ident, Ident, Eof]);
    }
}
