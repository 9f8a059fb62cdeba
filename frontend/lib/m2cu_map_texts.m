function [t, start, len] = m2cu_map_texts(f, x)
%M2CU_MAP_TEXTS  arrayfun(f, x, 'UniformOutput', false) where f gives a text of each element:
%   an m2cu cell of texts of x's size (the texts one after another, each one's offset and
%   length).
t = blanks(0);
start = zeros(size(x));
len = zeros(size(x));
for k = 1:numel(x)
  piece = f(x(k));
  if ~ischar(piece)
    m2cu_refuse('`arrayfun` or `cellfun` with ''UniformOutput'', false whose function gives no text: m2cu makes cells of texts only', ...
                'for one number per element, leave out ''UniformOutput'', false');
  end
  start(k) = numel(t);
  len(k) = numel(piece);
  t = [t, piece];
end
end
