"""The words sheets print, by what they label: how a sheet read by its labels (the card database's
sheet and its look-alikes, Konami's Genesys form, other generators' lists) is found and cut.
Keys are `pdf.words.label_key` forms: lower case, no spaces or marks."""
from __future__ import annotations

COLUMN_LABELS: dict[str, tuple[str, ...]] = {
    "monster": ("몬스터카드", "몬스터", "monstercards", "monstercard", "monster", "モンスターカード",
                "モンスター", "怪兽卡", "怪獸卡", "怪兽"),
    "spell": ("마법카드", "마법", "spellcards", "spellcard", "spell", "魔法カード", "魔法", "魔法卡"),
    "trap": ("함정카드", "함정", "trapcards", "trapcard", "trap", "罠カード", "罠", "陷阱卡", "陷阱"),
    "extra": ("엑스트라덱", "엑스트라", "extradeck", "extra", "エクストラデッキ", "额外卡组", "額外牌組"),
    "side": ("사이드덱", "사이드", "sidedeck", "side", "サイドデッキ", "副卡组", "副牌組"),
}
COUNT_LABELS = ("매수", "수량", "장수", "枚数", "数量", "qty", "quantity", "count", "no")
POINTS_LABELS = ("pts", "points", "point", "포인트")
"""A points column (Konami's Genesys form: PTS right of each name): never a name nor a count."""
TOTAL_WORDS = ("합계", "총계", "total", "合計", "合计")
MAIN_WORDS = ("메인", "main", "メイン", "主卡组")
NAME_LABELS = ("이름", "성명", "플레이어", "플레이어명", "氏名", "名前", "name", "playername", "姓名",
               "firstmiddlenames", "firstmiddlename", "first&middlenames", "first&middlename",
               "firstandmiddlenames", "firstname", "firstnames", "givenname")
SURNAME_LABELS = ("lastnames", "lastname", "surname", "familyname", "성")
"""A second name box (Konami's forms ask for the given and the family name apart)."""
ID_HINTS = ("코나미", "konami", "cardgame", "カードゲーム", "게임id")
EVENT_LABELS = ("이벤트명", "이벤트", "대회명", "대회", "イベント名", "eventname", "event", "赛事名称")
DATE_LABELS = ("날짜", "일자", "개최일", "日付", "date", "eventdate", "日期")
OTHER_HEADER_LABELS = ("참가번호", "참가", "id", "countryofresidency", "maindecktotal", "pointtotal",
                       "lastnameinitial", "judgeuseonly", "judgeinitials")
"""Labels of boxes that hold no value decksheet reads (judge boxes, residency, point totals)."""
