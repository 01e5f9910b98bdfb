// Inputs of the dreaming recording that are plain data: concept-tag snippets, contaminated-snippet samples,
// short-term path samples. Generated deterministically (no external text).
export const TAG_PATHS = [
  "memory/2026-04-27.md", "memory/2026-04-26-gateway-notes.md", "memory/.dreams/session-corpus/2026-04-27.txt",
  "memory/projects/router_setup.md", "MEMORY.md", "memory/2026-04-27-备份计划.md",
];

const FRAGMENTS = [
  "Decided to keep the gateway on port 8080 behind the VLAN router",
  "The nightly backup to S3 Glacier failed twice; failover to the local NAS worked",
  "Prefer OpenAI text-embedding-3-small for memory search; qmd stays the fallback",
  "Alice's birthday is on 2026-05-03 — order the cake by Friday",
  "Use snake_case names like flush_threshold_tokens and dot.separated.keys in configs",
  "see src/agents/workspace.ts and memory/2026-04-27.md#L4-L6 for the loader",
  "网关配置已经更新，路由器和备份都正常",
  "故障转移测试在周五完成，网络延迟降低了百分之二十",
  "我们决定把嵌入模型换成更小的版本以节省内存",
  "バックアップは毎晩三時に実行され、ネットワークの障害対応も確認した",
  "ゲートウェイの設定を変更して、ルーターを再起動しました",
  "東京のサーバーでフェイルオーバーをテストする",
  "게이트웨이 설정을 업데이트했고 백업도 정상입니다",
  "네트워크 장애대응 훈련은 금요일에 진행합니다",
  "La passerelle et le routeur ont été reconfigurés; la sauvegarde est prête",
  "Die Konfiguration der Sicherung und die Überwachung laufen über den Gateway",
  "La configuración del respaldo y el enrutador quedó lista para la puerta-de-enlace",
  "🚀 deployed v2.3.1 to prod 🎉 — rollback plan in memory/2026-04-28.md",
  "👩‍💻 pair-programmed the KV cache eviction with 🧑🏽‍🔬 on call",
  "ok", "the and for you", "2026-04-27 2026-04-28.md 12345 42",
  "Ｆｕｌｌｗｉｄｔｈ ＧＡＴＥＷＡＹ ｃｏｎｆｉｇ and ﬁle ligatures",
  "İstanbul ofisindeki ağ geçidi yapılandırması tamamlandı",
  "Привет, шлюз и маршрутизатор настроены, резервная копия готова",
  "مرحبا، تم إعداد البوابة والموجه بنجاح",
  "สวัสดี เราตั้งค่าเกตเวย์และเราเตอร์เรียบร้อยแล้ว",
  "Mixed 中文English混合 tokens like GPT4o和Claude",
  "very-long-compound-token-name-that-keeps-going-and-going-past-thirty-two-characters",
  "_leading_underscore and trailing_ plus --dashes-- and ...dots...",
  "URLs https://example.com/a/b?c=d and emails ops@example.com",
  "C'est l'été; l’apostrophe typographique et d'accord",
  "ひらがなだけのぶん と カタカナダケノブン",
  "한 글자 두 글자 세글자 네글자다",
  "数字123和字母abc混在一起",
  "A\u00a0non\u2011breaking\u2013dash and zero\u200bwidth space",
  "Ünïcödé normalization: e\u0301 vs é and ﬀ",
  "tabs\tand\nnewlines\r\nin the snippet",
];

/** (path, snippet) pairs: each fragment alone with each path, plus pairwise joins. */
export function conceptTagInputs() {
  const out = [];
  FRAGMENTS.forEach((fragment, i) => {
    out.push({ path: TAG_PATHS[i % TAG_PATHS.length], snippet: fragment });
  });
  for (let i = 0; i < FRAGMENTS.length; i++) {
    const j = (i * 7 + 3) % FRAGMENTS.length;
    out.push({ path: TAG_PATHS[(i + 1) % TAG_PATHS.length], snippet: `${FRAGMENTS[i]}. ${FRAGMENTS[j]}` });
  }
  out.push({ path: "memory/2026-04-27.md", snippet: "" });
  out.push({ path: "memory/2026-04-27.md", snippet: FRAGMENTS.join(" ") , limit: 3 });
  out.push({ path: "memory/2026-04-27.md", snippet: FRAGMENTS[0], limit: 0 });
  return out;
}

export const CONTAMINATED = [
  "- Candidate: keep the gateway on 8080 - confidence: 0.62 - evidence: memory/2026-04-28.md:3-5 - recalls: 2 - status: staged",
  "Candidate: keep the gateway on 8080\n  - confidence: 0.62\n  - evidence: memory/2026-04-28.md:3-5\n  - recalls: 2\n  - status: staged",
  "[ - Candidate: x confidence: 1 evidence: memory/.dreams/session-corpus/2026-04-28.txt:1-1 recalls: 3 status: staged",
  "@@ -3,4 - Candidate: x confidence: 0.5 evidence: memory/a.md recalls: 1 status: staged",
  "> Reflections: theme confidence: 0.9 evidence: memory/x.md:1-2 recalls: 4 status: staged",
  "Reflection: theme confidence: 0.9 evidence: memory/x.md:1-2 recalls: 4 status: staged",
  "Candidate: keep the gateway on 8080 - confidence: 0.62 - evidence: memory/2026-04-28.md:3-5 - status: staged",
  "Candidate: x - confidence: high - evidence: memory/a.md - recalls: 2 - status: staged",
  "Candidate: x - confidence: 0.7 - evidence: notes/a.md - recalls: 2 - status: staged",
  "Candidate: x - confidence: 0.7 - evidence: memory/a.md - recalls: 2 - status: promoted",
  "Note: Candidate: inside - confidence: 0.7 - evidence: memory/a.md - recalls: 2 - status: staged",
  "<!-- openclaw-memory-promotion:memory:memory/2026-04-27.md:4:6 -->",
  "<!--openclaw-memory-promotion:x-->",
  "[agent:main:dreaming-narrative-light-abc] User: Write a dream diary entry from these memory fragments:",
  "[dreaming-narrative-rem] Assistant: write a dream diary entry from these memory fragments",
  "[session] User: Write a dream diary entry from these memory fragments:",
  "The gateway stays on port 8080.",
  "",
  "   ",
  "CANDIDATE: X CONFIDENCE: 0.1 EVIDENCE: MEMORY/A.MD RECALLS: 9 STATUS: STAGED",
  "- * + Candidate: nested confidence: 0.3 evidence: memory/a.md recalls: 1 status: staged",
  "( Candidate: paren confidence: 0.3 evidence: memory/a.md recalls: 1 status: staged",
];

export const SHORT_TERM_PATHS = [
  "memory/2026-04-26.md", "memory/2026-04-26-gateway-notes.md", "memory/2026-4-26.md", "memory/sub/dir/2026-04-26.md",
  "memory/dreaming/light/2026-04-26.md", "memory/dreaming/2026-04-26.md", "memory/.dreams/session-corpus/2026-04-26.txt",
  "memory/.dreams/session-corpus/2026-04-26.md", "memory/.dreams/session-corpus/2026-04-26.json", "2026-04-26.md",
  "MEMORY.md", "notes/2026-04-26.md", "./memory/2026-04-26.md", "memory\\2026-04-26.md", "workspace/memory/2026-04-26.md",
  "memory/2026-04-26.MD", "memory/2026-04-26.md.bak", "memory/x2026-04-26.md", "memory/.dreams/2026-04-26.md",
];
